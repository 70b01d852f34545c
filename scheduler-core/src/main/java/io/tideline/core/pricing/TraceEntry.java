package io.tideline.core.pricing;

/**
 * One step of a pricing decision's rule trace (requirement P7/O2: every decision can be explained).
 *
 * @param subject what the rule looked at (a job, a candidate start)
 * @param rule the rule, prefixed by its requirement ID (e.g. {@code "B2 cheapest start"})
 * @param outcome the rule's result
 * @param detail the numbers behind it
 */
public record TraceEntry(String subject, String rule, String outcome, String detail) {

  @Override
  public String toString() {
    return subject + " | " + rule + " | " + outcome + " | " + detail;
  }
}
