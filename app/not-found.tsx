import Link from "next/link";

export default function NotFound() {
  return (
    <div className="card narrow">
      <h1>Page not found</h1>
      <p>There is no page at this address.</p>
      <Link href="/">Go to the home page</Link>
    </div>
  );
}
