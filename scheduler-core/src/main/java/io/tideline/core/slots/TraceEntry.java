package io.tideline.core.slots;

/**
 * One line of a slot-classification rule trace (O2): which rule applied to which subject, with
 * what outcome and why, so a slot map can be explained and replayed.
 *
 * @param subject what the rule looked at (a slot index, a cluster, the profile)
 * @param rule the rule, with its requirement ID
 * @param outcome what the rule decided
 * @param detail the figures behind the outcome
 */
public record TraceEntry(String subject, String rule, String outcome, String detail) {

  @Override
  public String toString() {
    return subject + " | " + rule + " | " + outcome + " | " + detail;
  }
}
