package io.tideline.executor;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The executor's meters, in one place (names as Prometheus shows them):
 * <ul>
 *   <li>{@code tideline_executor_binds_total{result}}: BOUND (a Binding this replica created),
 *       ALREADY_BOUND (a pod found bound to its node by an earlier replica), CONFLICT, FAILED;
 *   <li>{@code tideline_executor_submissions_total{outcome}}: SUBMITTED, INVALID;
 *   <li>{@code tideline_executor_evictions_total{kind,result}}: EVICTED, BLOCKED (a PDB said no);
 *   <li>{@code tideline_executor_lifecycle_total{type}}: each JobLifecycle published;
 *   <li>{@code tideline_executor_orders_total{topic,outcome}}: orders read, by outcome (unknown
 *       and foreign ones counted, never acted on);
 *   <li>{@code tideline_executor_dead_letters_total{topic}}.
 * </ul>
 */
public final class ExecutorMeters {

  private final MeterRegistry registry;

  public ExecutorMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  public void bind(String result) {
    counter("tideline.executor.binds", "result", result).increment();
  }

  public double binds(String result) {
    Counter c = registry.find("tideline.executor.binds").tag("result", result).counter();
    return c == null ? 0 : c.count();
  }

  public void submission(String outcome) {
    counter("tideline.executor.submissions", "outcome", outcome).increment();
  }

  public void eviction(String kind, String result) {
    registry.counter("tideline.executor.evictions", "kind", kind, "result", result).increment();
  }

  public void lifecycle(String type) {
    counter("tideline.executor.lifecycle", "type", type).increment();
  }

  public void order(String topic, String outcome) {
    registry.counter("tideline.executor.orders", "topic", topic, "outcome", outcome).increment();
  }

  public void deadLetter(String topic) {
    counter("tideline.executor.dead.letters", "topic", topic).increment();
  }

  private Counter counter(String name, String tag, String value) {
    return registry.counter(name, tag, value);
  }
}
