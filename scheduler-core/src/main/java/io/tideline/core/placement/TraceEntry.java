package io.tideline.core.placement;

/**
 * One line of a decision's rule trace (O2, P7): which rule applied to which subject, with what
 * outcome and why, in words an operator or job owner can read.
 *
 * @param subject what the rule was applied to (a job, node, domain, GPU or reservation)
 * @param rule the rule, prefixed with its requirement id (e.g. {@code "T1 smallest domain"})
 * @param outcome short verdict (e.g. {@code "chosen"}, {@code "excluded"})
 * @param detail the numbers behind the verdict
 */
public record TraceEntry(String subject, String rule, String outcome, String detail) {

  @Override
  public String toString() {
    return subject + " | " + rule + " | " + outcome + " | " + detail;
  }
}
