package io.tideline.core.quota;

/**
 * One step of a quota decision's rule trace, so {@code tideline explain JOB} and an audit replay can
 * say which rule applied to which subject and why (requirement P7, O2).
 *
 * @param subject what the rule looked at (a job id, a queue path, a service)
 * @param rule the rule, prefixed by its requirement ID (e.g. {@code "Q3 borrow cap"})
 * @param outcome the rule's result in one word or phrase (e.g. {@code "pass"}, {@code "blocked"})
 * @param detail the numbers behind it (e.g. {@code "borrowed 6 + 4 > cap 8"})
 */
public record TraceEntry(String subject, String rule, String outcome, String detail) {

  @Override
  public String toString() {
    return subject + " | " + rule + " | " + outcome + " | " + detail;
  }
}
