package io.tideline.telemetry.collect.prom;

import java.util.List;
import java.util.Map;

/**
 * What one exposition body yielded: the samples that parsed, the metric types declared by
 * {@code # TYPE} lines, and the lines that did not parse (skipped, never fatal).
 *
 * @param samples well-formed sample lines, in body order
 * @param types metric name to declared type ({@code gauge}, {@code counter}, ...)
 * @param malformed lines that were skipped, with their line number and reason
 */
public record PromParseResult(
    List<PromSample> samples, Map<String, String> types, List<Malformed> malformed) {

  /** A skipped line: where, what, why. */
  public record Malformed(int lineNumber, String line, String reason) {}
}
