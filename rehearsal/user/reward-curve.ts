// The rehearsal's learning curve as the scripted user sees it: judged turns grouped by the policy weight version
// that produced them (one version per training batch), with the rejected style's share and the mean verdict.
import { REJECTED_STYLE } from "../policy/reply-styles.ts";
import type { TurnRecord } from "./scripted-user.ts";

export interface CurvePoint {
  version: string;
  turns: number;
  answers: number;
  /** Share of plain answers written in the rejected style (null when the version produced no answer). */
  rejectedShare: number | null;
  meanReward: number;
}

export function rewardCurve(records: readonly TurnRecord[]): CurvePoint[] {
  const groups = new Map<string, TurnRecord[]>();
  for (const record of records) {
    const version = record.weightVersion ?? "?";
    groups.set(version, [...(groups.get(version) ?? []), record]);
  }
  return [...groups.entries()].map(([version, group]) => {
    const answers = group.filter((record) => record.kind === "answer");
    const rejected = answers.filter((record) => record.style === REJECTED_STYLE).length;
    return {
      version,
      turns: group.length,
      answers: answers.length,
      rejectedShare: answers.length > 0 ? rejected / answers.length : null,
      meanReward: group.reduce((sum, record) => sum + record.verdict, 0) / group.length,
    };
  });
}

/** Share of rejected-style answers among a slice of records (the first or last third of a run, say). */
export function rejectedShare(records: readonly TurnRecord[]): number | null {
  const answers = records.filter((record) => record.kind === "answer");
  return answers.length > 0 ? answers.filter((record) => record.style === REJECTED_STYLE).length / answers.length : null;
}

export function formatCurvePoint(point: CurvePoint, probability: number | null): string {
  const share = point.rejectedShare === null ? "   –" : `${(100 * point.rejectedShare).toFixed(0).padStart(3)}%`;
  const reward = `${point.meanReward >= 0 ? "+" : ""}${point.meanReward.toFixed(2)}`;
  const bar = "#".repeat(Math.round(((point.meanReward + 1) / 2) * 20)).padEnd(20, ".");
  const policy = probability === null ? "" : `  P(${REJECTED_STYLE})=${probability.toFixed(3)}`;
  return `weights v${point.version.padEnd(4)} turns ${String(point.turns).padStart(3)}  ${REJECTED_STYLE}-style ${share}  reward ${reward.padStart(5)} ${bar}${policy}`;
}
