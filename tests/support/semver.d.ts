// semver (npm's range syntax; in node_modules through autocannon and the ESLint toolchain) ships no types: the one function the tests use.
declare module "semver" {
  const semver: { satisfies(version: string, range: string): boolean };
  export default semver;
}
