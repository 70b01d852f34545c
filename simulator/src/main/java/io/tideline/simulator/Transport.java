package io.tideline.simulator;

import io.tideline.platform.kernel.HostRecord;
import java.util.List;

/**
 * How the twin's world reaches the schedulers: in process ({@link InProcessTransport}: the
 * kernels' hosts on a queue) or through Kafka ({@link KafkaTransport}: the real services on a real
 * broker). Both carry the same records and deliver, per cycle, the same set of inputs before each
 * tick (lockstep), so the kernels decide the same (ADR 0008).
 */
public interface Transport extends AutoCloseable {

  /** Publishes the world's records (each with its event time as the record timestamp). */
  void publish(List<World.Timed> records);

  /**
   * Returns once every record published so far, and everything the schedulers produced in
   * answer, has been consumed by every scheduler.
   */
  void settle() throws InterruptedException;

  /**
   * What the schedulers published since the last call on the topics the world reads
   * ({@link World#observed()}), in canonical order: topic (in that list's order), then key, then
   * the order produced (which is the same on every transport for one topic and key).
   */
  List<HostRecord> collect() throws InterruptedException;

  /**
   * Whether, since the last call, the schedulers published records that another scheduler reads
   * ({@link Twin#CASCADE}): then a tick must follow soon for the cascade to go on.
   */
  boolean cascaded() throws InterruptedException;

  @Override
  void close();

  /** The canonical order of {@link #collect()}, applied to any list of records. */
  static List<HostRecord> canonical(List<HostRecord> records) {
    List<String> topics = World.observed();
    List<HostRecord> out = new java.util.ArrayList<>(records);
    out.sort(java.util.Comparator.<HostRecord>comparingInt(r -> topics.indexOf(r.topic()))
        .thenComparing(HostRecord::key));
    return out;
  }
}
