// The one way the specs run axe-core: WCAG 2.1 A and AA rules, on the page as it is now.
import { AxeBuilder } from "@axe-core/playwright";
import type { Page } from "@playwright/test";

/** What axe reports of one rule (axe-core's Result, through the package the specs depend on). */
type Violation = Awaited<ReturnType<AxeBuilder["analyze"]>>["violations"][number];

const WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/**
 * The page's violations. Legacy mode runs axe in the page itself instead of merging per-frame results in a blank
 * page it opens, which took half of each audit (issue 51 item 8: CI's time). It tests same-origin frames alike and
 * skips only cross-origin ones, so the audit first proves the page has no frame at all: nothing goes untested.
 */
export async function axeViolations(page: Page): Promise<Violation[]> {
  const frames = page.frames().map((frame) => frame.url());
  if (frames.length !== 1) throw new Error(`the audit expects a page without frames; ${page.url()} has ${frames.slice(1).join(", ")}`);
  const { violations } = await new AxeBuilder({ page }).withTags(WCAG_21_AA).setLegacyMode(true).analyze();
  return violations;
}
