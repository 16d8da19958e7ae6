// The request counter and histogram: names, labels, counts, sums and cumulative buckets of each (method, route,
// status). The counter is read back from the /metrics text by a Prometheus text parser; the histogram's series
// through prom-client's public get(), the values its text is rendered from, because that parser merges the
// series of a labelled histogram into one bucket map and drops their labels, sums and counts.
import fc from "fast-check";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { describe, expect, it } from "vitest";
import { recordRequest, serviceMetrics } from "@/lib/observability/metrics";

const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];
const HISTOGRAM = "agent_gate_http_request_duration_seconds";

async function scrape() {
  const families = parsePrometheusTextFormat(await serviceMetrics().registry.metrics());
  return new Map(families.map((family) => [family.name, family]));
}

describe("request metrics", () => {
  it("count and time every request by method, route and status, for any durations", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.double({ min: 0, max: 20, noNaN: true }), { minLength: 1, maxLength: 50 }), fc.integer({ min: 100, max: 599 }), async (durations, status) => {
        const route = `/request-metrics-${run++}`;
        for (const seconds of durations) recordRequest("POST", route, status, seconds);
        const labels = { method: "POST", route, status: String(status) };

        const families = await scrape();
        const requests = families.get("agent_gate_http_requests_total")!;
        expect(requests.type).toBe("COUNTER");
        expect(requests.metrics.filter((m) => m.labels?.route === route)).toEqual([{ labels, value: String(durations.length) }]);
        expect(families.get(HISTOGRAM)!.type).toBe("HISTOGRAM");

        const values = (await serviceMetrics().durations.get()).values.filter((v) => v.labels.route === route);
        // prom-client's types leave out the le label its histogram values carry.
        const bucketValues = values.filter((v) => v.metricName === `${HISTOGRAM}_bucket`).map((v) => ({ labels: v.labels as Record<string, string | number>, value: v.value }));
        const buckets = Object.fromEntries(bucketValues.map(({ labels: { le, ...rest }, value }) => [String(le), { rest, value }]));
        const expected = Object.fromEntries([...BOUNDS.map((bound) => [String(bound), durations.filter((d) => d <= bound).length]), ["+Inf", durations.length]]);
        expect(Object.fromEntries(Object.entries(buckets).map(([le, { value }]) => [le, value]))).toEqual(expected);
        for (const { rest } of Object.values(buckets)) expect(rest).toEqual(labels);
        const count = values.find((v) => v.metricName === `${HISTOGRAM}_count`)!;
        const sum = values.find((v) => v.metricName === `${HISTOGRAM}_sum`)!;
        expect(count).toMatchObject({ labels, value: durations.length });
        expect(sum.labels).toEqual(labels);
        expect(sum.value).toBeCloseTo(
          durations.reduce((a, b) => a + b, 0),
          6,
        );
      }),
      { numRuns: 30 },
    );
  });

  it("caps label values at 64 characters", async () => {
    recordRequest("GET", `/long-${"x".repeat(100)}`, 200, 0.01);
    const routes = (await scrape()).get("agent_gate_http_requests_total")!.metrics.map((m) => m.labels?.route ?? "");
    expect(routes).toContain(`/long-${"x".repeat(58)}`);
  });
});
