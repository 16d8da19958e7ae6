// A client that sends a huge request body from one loopback address, and the server's resident memory: the tests of
// issue 41's body limits (tests/http/fairness.test.ts, tests/http/body-limits-next.test.ts).
import fs from "node:fs";
import net from "node:net";

/** The resident memory of a process, in MiB (/proc). */
export function rssMiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
}

/**
 * Streams a body of `bytes` to `path`, declared (Content-Length) or chunked, as fast as the server takes it, until the
 * server answers or closes the connection; resolves with the start of its answer ("" when it closed without one).
 */
export function hugeBody(port: number, path: string, bytes: number, chunked: boolean, localAddress = "127.0.0.1"): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1", localAddress });
    let answer = "";
    let sent = 0;
    const block = Buffer.alloc(256 * 1024, 0x61);
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      answer += chunk;
      if (answer.includes("\r\n\r\n")) socket.destroy();
    });
    socket.on("error", () => undefined);
    const timer = setTimeout(() => socket.destroy(), 30_000);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(answer.slice(0, 12));
    });
    const pump = (): void => {
      while (sent < bytes && !socket.destroyed) {
        const piece = chunked ? Buffer.concat([Buffer.from(`${block.length.toString(16)}\r\n`), block, Buffer.from("\r\n")]) : block;
        sent += block.length;
        if (!socket.write(piece)) return void socket.once("drain", pump);
      }
      if (!socket.destroyed) socket.end(chunked ? "0\r\n\r\n" : "");
    };
    socket.on("connect", () => {
      const framing = chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${bytes}`;
      socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\n${framing}\r\n\r\n`);
      pump();
    });
  });
}
