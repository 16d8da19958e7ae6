"use client";

import { useEffect, useState } from "react";

function format(msLeft: number): string {
  const total = Math.max(0, Math.floor(msLeft / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return minutes > 0 ? `${minutes} min ${String(seconds).padStart(2, "0")} s` : `${seconds} s`;
}

/** Counts down to the attempt's expiry; the server-rendered text stands until the script runs. */
export function TimeLeft({ expiresAt, serverText }: { expiresAt: string; serverText: string }) {
  const [text, setText] = useState(serverText);
  useEffect(() => {
    const end = Date.parse(expiresAt);
    const tick = () => {
      const left = end - Date.now();
      setText(left > 0 ? format(left) : "no time: this request has expired. Ask your agent for a new link.");
    };
    tick();
    const timer = setInterval(tick, 1000);
    return () => clearInterval(timer);
  }, [expiresAt]);
  return (
    <span data-testid="time-left" aria-live="off">
      {text}
    </span>
  );
}
