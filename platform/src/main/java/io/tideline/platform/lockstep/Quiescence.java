package io.tideline.platform.lockstep;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * Lockstep on a real broker: whether a set of consumer groups (the services' Streams
 * applications, keyed by application id) has consumed every committed record of every partition
 * it reads — committed offsets at the last stable offsets. The twin advances its clock only when
 * this holds, so every input timed before a tick has reached every service before the tick does
 * (ADR 0008), and a test drives a service one settled step at a time.
 */
public final class Quiescence implements AutoCloseable {

  private final Admin admin;

  public Quiescence(String bootstrap) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    this.admin = Admin.create(p);
  }

  /** The states of a transaction whose records or markers are not all written yet. */
  private static final List<TransactionState> IN_FLIGHT = List.of(TransactionState.ONGOING,
      TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT,
      TransactionState.PREPARE_EPOCH_FENCE);

  /**
   * Whether every group has a member and has committed, on every partition assigned to it or
   * committed by it, at least the partition's last stable offset, and no transaction of a group
   * (an exactly-once Streams application's transactional ids start with its application id) is
   * still in flight.
   *
   * <p>The second half closes a race: a transaction's commit markers reach its partitions one by
   * one, so the group's offsets (on {@code __consumer_offsets}) can be committed while the
   * records it produced are still above their partition's last stable offset. Offsets alone
   * would then call the step settled before its output is readable, and the twin would advance
   * without the cascade it caused. A transaction is complete only once every marker is written.
   */
  public boolean settled(Collection<String> groups) throws InterruptedException {
    try {
      Map<String, ConsumerGroupDescription> described = admin.describeConsumerGroups(groups)
          .all().get();
      Map<TopicPartition, Long> committed = new HashMap<>();
      Set<TopicPartition> parts = new HashSet<>();
      Map<String, Set<TopicPartition>> byGroup = new HashMap<>();
      Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
      for (String g : groups) {
        ConsumerGroupDescription d = described.get(g);
        if (d == null || d.members().isEmpty()) {
          return false; // not (yet) running: nothing is consumed
        }
        specs.put(g, new ListConsumerGroupOffsetsSpec()); // all its partitions
      }
      // one request for every group's offsets (a lockstep run asks this thousands of times)
      Map<String, Map<TopicPartition, OffsetAndMetadata>> all = admin
          .listConsumerGroupOffsets(specs).all().get();
      for (String g : groups) {
        Set<TopicPartition> mine = new HashSet<>();
        for (MemberDescription m : described.get(g).members()) {
          mine.addAll(m.assignment().topicPartitions());
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = all.getOrDefault(g, Map.of());
        mine.addAll(offsets.keySet());
        byGroup.put(g, mine);
        parts.addAll(mine);
        offsets.forEach((tp, o) -> {
          if (o != null) {
            committed.put(key(g, tp), o.offset());
          }
        });
      }
      if (parts.isEmpty()) {
        return false;
      }
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      parts.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
      var ends = admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
          .all().get();
      for (var e : byGroup.entrySet()) {
        for (TopicPartition tp : e.getValue()) {
          long end = ends.get(tp).offset();
          Long c = committed.get(key(e.getKey(), tp));
          if (end > 0 && (c == null || c < end)) {
            return false;
          }
        }
      }
      return !inFlight(groups);
    } catch (ExecutionException e) {
      return false; // a group or topic is not there yet
    }
  }

  /** Whether a transaction of one of {@code groups} is open or has markers still to write. */
  private boolean inFlight(Collection<String> groups)
      throws InterruptedException, ExecutionException {
    for (TransactionListing t : admin.listTransactions(new ListTransactionsOptions()
        .filterStates(IN_FLIGHT)).all().get()) {
      for (String g : groups) {
        if (t.transactionalId().startsWith(g + "-")) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Waits until {@link #settled} holds, polling every {@code pollMillis}; returns whether it did
   * within {@code timeout} (measured with {@code wallMillis}, the caller's clock).
   */
  public boolean await(Collection<String> groups, Duration timeout, long pollMillis,
      LongSupplier wallMillis) throws InterruptedException {
    long until = wallMillis.getAsLong() + timeout.toMillis();
    while (true) {
      if (settled(groups)) {
        return true;
      }
      if (wallMillis.getAsLong() >= until) {
        return false;
      }
      Thread.sleep(pollMillis);
    }
  }

  /**
   * How far the groups have consumed: the sum of their committed offsets (0 while a group is not
   * there yet). A caller waiting long for {@link #settled} compares two of these to tell a slow
   * service from one that stopped.
   */
  public long consumed(Collection<String> groups) throws InterruptedException {
    Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
    groups.forEach(g -> specs.put(g, new ListConsumerGroupOffsetsSpec()));
    try {
      long sum = 0;
      for (Map<TopicPartition, OffsetAndMetadata> offsets : admin.listConsumerGroupOffsets(specs)
          .all().get().values()) {
        for (OffsetAndMetadata o : offsets.values()) {
          sum += o == null ? 0 : o.offset();
        }
      }
      return sum;
    } catch (ExecutionException e) {
      return 0;
    }
  }

  /** A group's partition as one key (groups share the partition map). */
  private static TopicPartition key(String group, TopicPartition tp) {
    return new TopicPartition(group + "\u0000" + tp.topic(), tp.partition());
  }

  /** The end offsets (last stable) of {@code partitions}. */
  public Map<TopicPartition, Long> ends(List<TopicPartition> partitions)
      throws InterruptedException, ExecutionException {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    partitions.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
    Map<TopicPartition, Long> out = new HashMap<>();
    admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get()
        .forEach((tp, r) -> out.put(tp, r.offset()));
    return out;
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(5));
  }
}
