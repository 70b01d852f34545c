package io.tideline.core.preemption;

/**
 * One line of a preemption decision's rule trace (P7, O2): which rule applied to which subject
 * (the preemptor or a candidate victim) and why, in words an owner can read in a notice.
 *
 * @param subject job id the rule was applied to
 * @param rule the rule
 * @param result what the rule did
 * @param detail why, e.g. "protected until 2026-11-02T14:15:00Z" or "score ratio 1.30 < 1.50"
 */
public record TraceEntry(String subject, PreemptionRule rule, Result result, String detail) {

  /** What a rule did to its subject. */
  public enum Result {
    /** The subject satisfied the rule. */
    PASS,
    /** The rule refused the subject (as a victim) or the whole preemption (as preemptor). */
    REFUSE,
    /** The candidate was chosen as a victim. */
    TAKE,
    /** The candidate was eligible but not needed for a feasible placement. */
    SKIP
  }

  @Override
  public String toString() {
    return subject + " [" + rule.label() + "] " + result + ": " + detail;
  }
}
