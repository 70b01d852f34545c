package io.tideline.core.preemption;

/**
 * The public rules a preemption decision applies (P7: "rules are public"), each named after the
 * requirement it implements so a trace line points straight at the policy.
 */
public enum PreemptionRule {
  W4_RIGHT_TO_PREEMPT("W4 right to preempt"),
  P1_SCORE("P1 score"),
  P5_GAIN("P5 gain"),
  SELF("self"),
  W1_NEVER_INTERRUPTED("W1 never interrupted"),
  W4_PREEMPTIBLE("W4 preemptible"),
  P3_PROTECTION("P3 protection"),
  P3_COOLDOWN("P3 cooldown"),
  P2_THRESHOLD("P2 score threshold"),
  P5_HUGE_STATE("P5 huge state"),
  P5_NEAR_COMPLETION("P5 near completion"),
  P5_GAIN_VS_COST("P5 gain vs cost"),
  FEASIBILITY("feasible placement"),
  VICTIM_SET("victim set"),
  Q7_IDLE_RECLAIM("Q7 idle reclaim"),
  Q7_SHRINK("Q7 shrink"),
  Q3_GUARANTEE_RECLAIM("Q3 guarantee reclaim"),
  F2_RESERVATION_START("F2 reservation start");

  private final String label;

  PreemptionRule(String label) {
    this.label = label;
  }

  /** Human-readable name, e.g. "P3 protection". */
  public String label() {
    return label;
  }
}
