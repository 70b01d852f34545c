package io.tideline.console;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** The console's meters (docs/metrics.md). */
@ApplicationScoped
public class ConsoleMeters {

  private final MeterRegistry registry;
  private final DistributionSummary onlineWait;
  private final ConcurrentHashMap<String, Counter> records = new ConcurrentHashMap<>();
  private final AtomicLong appliedPreemptions = new AtomicLong();

  public ConsoleMeters(MeterRegistry registry) {
    this.registry = registry;
    this.onlineWait = DistributionSummary.builder("tideline.console.online.scaleup.wait")
        .description("Seconds from an online instance's submission to its first placement, event"
            + " time (the scale-up wait the tide must keep short)")
        .baseUnit("seconds").publishPercentileHistogram().register(registry);
    Gauge.builder("tideline.console.preemptions.applied", appliedPreemptions, AtomicLong::get)
        .description("Preemption decisions that preempted (outcome PREEMPT), as the console saw them")
        .register(registry);
  }

  /** One record read, decoded or not. */
  public void record(String topic, boolean decoded) {
    records.computeIfAbsent(topic + "|" + decoded, k -> Counter.builder("tideline.console.records")
        .description("Records the console read, by topic and whether they could be decoded")
        .tag("topic", topic).tag("outcome", decoded ? "folded" : "undecodable")
        .register(registry)).increment();
  }

  /** An online job's wait from submission to first placement, in milliseconds of event time. */
  public void onlineWait(long millis) {
    onlineWait.record(millis / 1000.0);
  }

  public void appliedPreemptions(long n) {
    appliedPreemptions.set(n);
  }
}
