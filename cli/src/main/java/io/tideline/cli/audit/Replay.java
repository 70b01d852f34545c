package io.tideline.cli.audit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericContainer;
import org.apache.avro.generic.IndexedRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/**
 * The audit replay of one ledger (O2, O3): re-runs the service's own topology on the recorded
 * input log and compares every recomputed decision of a time window with the recorded one.
 *
 * <p>Why it is faithful: the ledger is a single writer per cluster that decides on its input log
 * in offset order, with event time only. Feeding the same log, in the same order, with the same
 * record timestamps, to the same topology factory reproduces the same state and the same
 * decisions. The driver is Kafka's {@link TopologyTestDriver}: in memory, hermetic — the replay
 * writes nothing to the Kafka cluster (no consumer group, no producer).
 *
 * <p>Steps: 1. read the cluster's input log from its beginning (state before the window has to be
 * rebuilt) up to the last input stamped before {@code to}; 2. read the recorded decisions stamped
 * in the window, found by timestamp offsets; 3. pipe every input through the topology, keeping the
 * decisions it produces for inputs of the window (a decision carries its input's timestamp);
 * 4. match recorded and recomputed decisions per topic, key and decision id, and compare them field by
 * field (trace included); 5. note the policy versions on each side, so a replay across a config
 * change says so.
 */
public final class Replay {

  /** The audited window {@code [from, to)} of record (event) time. */
  public record Window(Instant from, Instant to) {
    public Window {
      if (!from.isBefore(to)) {
        throw new IllegalArgumentException("--from must be before --to (got " + from + " and " + to + ")");
      }
    }

    boolean contains(long timestamp) {
      return timestamp >= from.toEpochMilli() && timestamp < to.toEpochMilli();
    }
  }

  /** What differs between a recorded and a recomputed decision. */
  public enum Kind { DIFFERS, NOT_RECOMPUTED, NOT_RECORDED }

  /**
   * One decision the replay does not reproduce.
   *
   * @param kind differs, recorded but not recomputed, or recomputed but not recorded
   * @param topic decision topic
   * @param key record key
   * @param id the decision's id (decisionId, evictionId, requestId or jobId)
   * @param timestamp record time
   * @param where the recorded record's partition@offset, or "-"
   * @param differences "field: recorded …, recomputed …" per differing field
   */
  public record Mismatch(Kind kind, String topic, String key, String id, Instant timestamp,
      String where, List<String> differences) {}

  /**
   * The outcome of one ledger's replay.
   *
   * @param target ledger name
   * @param cluster replayed cluster
   * @param inputsBefore inputs replayed to rebuild the state before the window (not compared)
   * @param inputsInWindow inputs of the window
   * @param recorded recorded decisions in the window
   * @param recomputed recomputed decisions in the window
   * @param mismatches every decision not reproduced
   * @param recordedPolicies policy versions on the recorded decisions, with when each first appears
   * @param replayedPolicies policy versions on the recomputed decisions
   * @param logStart the first offset the input log still holds, per partition where it is above 0:
   *     inputs before it were deleted (retention), so the state before the window is incomplete
   */
  public record Result(String target, String cluster, int inputsBefore, int inputsInWindow,
      int recorded, int recomputed, List<Mismatch> mismatches,
      Map<String, Instant> recordedPolicies, Map<String, Instant> replayedPolicies,
      Map<Integer, Long> logStart) {

    /** True when the recorded decisions were taken under a policy this replay did not run. */
    public boolean acrossConfigChange() {
      return recordedPolicies.size() > 1 || !replayedPolicies.keySet().containsAll(recordedPolicies.keySet());
    }
  }

  private Replay() {}

  /**
   * Replays {@code target} for {@code cluster} over {@code window}.
   *
   * @param client Kafka client settings (bootstrap, SASL/TLS)
   * @param serde registry serde settings returning specific records (the services' settings: the
   *     serializers find the schema versions the live ledgers registered)
   */
  public static Result run(Properties client, Map<String, Object> serde, ReplayTarget target,
      String cluster, Window window) {
    Deserializer<Object> avro = io.tideline.platform.serde.AvroSerdes.valueDeserializer(serde);
    // 1. the cluster's inputs, in the order the ledger decided on them (and whether the log was
    //    truncated: then the state before the window cannot be rebuilt exactly)
    Map<Integer, Long> logStart = new java.util.TreeMap<>();
    LogReader.beginningOffsets(client, target.logTopic()).forEach((partition, offset) -> {
      if (offset > 0) {
        logStart.put(partition, offset);
      }
    });
    List<ConsumerRecord<byte[], byte[]>> inputs = new ArrayList<>();
    for (var part : LogReader.read(client, target.logTopic(), null).values()) {
      for (var r : part) {
        if (r.key() != null && cluster.equals(new String(r.key(), StandardCharsets.UTF_8))) {
          inputs.add(r);
        }
      }
    }
    int last = -1;
    for (int i = 0; i < inputs.size(); i++) {
      if (inputs.get(i).timestamp() < window.to().toEpochMilli()) {
        last = i;
      }
    }
    // 2. the recorded decisions of the window
    Map<String, List<Decision>> recorded = new LinkedHashMap<>();
    int recordedCount = 0;
    for (String topic : target.decisionTopics()) {
      for (var part : LogReader.read(client, topic, window.from()).values()) {
        for (var r : part) {
          if (!window.contains(r.timestamp()) || r.value() == null) {
            continue;
          }
          Object value = decode(avro, topic, r.value());
          Object c = field(value, "cluster");
          if (c != null && !cluster.equals(c.toString())) {
            continue;
          }
          recorded.computeIfAbsent(group(topic, key(r.key()), value), k -> new ArrayList<>())
              .add(new Decision(topic, key(r.key()), r.timestamp(), value,
                  r.partition() + "@" + r.offset()));
          recordedCount++;
        }
      }
    }
    // 3. re-run the service's topology on the log
    Map<String, List<Decision>> recomputed = new LinkedHashMap<>();
    int before = 0;
    int inWindow = 0;
    int recomputedCount = 0;
    Path stateDir = tempDir();
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "tideline-audit-replay-" + target.name());
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "audit-replay.invalid:9092");
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    try (TopologyTestDriver driver = new TopologyTestDriver(target.topology().apply(serde), props)) {
      TestInputTopic<byte[], byte[]> log = driver.createInputTopic(target.logTopic(),
          new ByteArraySerializer(), new ByteArraySerializer());
      Map<String, TestOutputTopic<byte[], byte[]>> outputs = new HashMap<>();
      for (int i = 0; i <= last; i++) {
        var r = inputs.get(i);
        boolean compared = window.contains(r.timestamp());
        if (compared) {
          inWindow++;
        } else {
          before++;
        }
        log.pipeInput(new TestRecord<>(r.key(), r.value(), r.headers(),
            Instant.ofEpochMilli(r.timestamp())));
        for (String topic : driver.producedTopicNames()) {
          var out = outputs.computeIfAbsent(topic, t -> driver.createOutputTopic(t,
              new ByteArrayDeserializer(), new ByteArrayDeserializer()));
          for (TestRecord<byte[], byte[]> o : out.readRecordsToList()) {
            if (!target.decisionTopics().contains(topic) || !window.contains(o.timestamp())
                || o.value() == null) {
              continue; // state rebuilt before the window, or not a decision
            }
            Object value = decode(avro, topic, o.value());
            recomputed.computeIfAbsent(group(topic, key(o.key()), value), k -> new ArrayList<>())
                .add(new Decision(topic, key(o.key()), o.timestamp(), value, "-"));
            recomputedCount++;
          }
        }
      }
    } finally {
      deleteTree(stateDir);
    }
    // 4. compare, per topic and key, in order; 5. policy versions on both sides
    List<Mismatch> mismatches = new ArrayList<>();
    Map<String, Instant> recordedPolicies = policies(recorded);
    Map<String, Instant> replayedPolicies = policies(recomputed);
    java.util.Set<String> keys = new java.util.LinkedHashSet<>(recorded.keySet());
    keys.addAll(recomputed.keySet());
    for (String k : keys) {
      mismatches.addAll(compare(recorded.getOrDefault(k, List.of()),
          recomputed.getOrDefault(k, List.of())));
    }
    mismatches.sort(Comparator.comparing(Mismatch::timestamp).thenComparing(Mismatch::topic));
    return new Result(target.name(), cluster, before, inWindow, recordedCount, recomputedCount,
        mismatches, recordedPolicies, replayedPolicies, logStart);
  }

  /**
   * Compares the recorded and recomputed decisions of one topic, key and decision id: 1. pair
   * each recorded decision with an equal recomputed one, in order; 2. pair what is left in order
   * and report the fields that differ; 3. a recorded decision left over (a forged extra copy)
   * differs from the group's recomputed one, or was not recomputed at all; a recomputed one left
   * over was never recorded.
   */
  static List<Mismatch> compare(List<Decision> recorded, List<Decision> recomputed) {
    List<Decision> a = new ArrayList<>(recorded);
    List<Decision> b = new ArrayList<>(recomputed);
    for (var it = a.iterator(); it.hasNext(); ) {
      Decision rec = it.next();
      for (int j = 0; j < b.size(); j++) {
        if (same(rec.value(), b.get(j).value())) {
          b.remove(j);
          it.remove();
          break;
        }
      }
    }
    List<Mismatch> out = new ArrayList<>();
    for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
      Decision rec = i < a.size() ? a.get(i) : null;
      Decision rep = i < b.size() ? b.get(i) : null;
      if (rec != null && rep != null) {
        out.add(rec.mismatch(Kind.DIFFERS, differences(rec.value(), rep.value())));
      } else if (rec != null && !recomputed.isEmpty()) {
        out.add(rec.mismatch(Kind.DIFFERS, differences(rec.value(), recomputed.get(0).value())));
      } else if (rec != null) {
        out.add(rec.mismatch(Kind.NOT_RECOMPUTED, List.of("recorded, but the replay did not decide it")));
      } else {
        out.add(rep.mismatch(Kind.NOT_RECORDED, List.of("recomputed, but never recorded")));
      }
    }
    return out;
  }

  /** Groups a decision with the others of its topic, key and id (decisionId, …). */
  private static String group(String topic, String key, Object value) {
    return topic + "|" + key + "|" + idOf(value);
  }

  /** A decision, recorded or recomputed. */
  record Decision(String topic, String key, long timestamp, Object value, String where) {
    Mismatch mismatch(Kind kind, List<String> differences) {
      return new Mismatch(kind, topic, key, idOf(value), Instant.ofEpochMilli(timestamp), where,
          differences);
    }
  }

  private static Map<String, Instant> policies(Map<String, List<Decision>> decisions) {
    Map<String, Instant> first = new HashMap<>();
    decisions.values().forEach(list -> list.forEach(d -> {
      Object v = field(d.value(), "policyVersion");
      if (v != null) {
        first.merge(v.toString(), Instant.ofEpochMilli(d.timestamp()),
            (x, y) -> x.isBefore(y) ? x : y);
      }
    }));
    Map<String, Instant> ordered = new LinkedHashMap<>();
    first.entrySet().stream().sorted(Map.Entry.comparingByValue())
        .forEach(e -> ordered.put(e.getKey(), e.getValue()));
    return ordered;
  }

  /** Field by field: "field: recorded X, recomputed Y". */
  static List<String> differences(Object recorded, Object recomputed) {
    List<String> out = new ArrayList<>();
    if (recorded instanceof IndexedRecord a && recomputed instanceof IndexedRecord b
        && a.getSchema().equals(b.getSchema())) {
      for (Schema.Field f : a.getSchema().getFields()) {
        Object x = a.get(f.pos());
        Object y = b.get(f.pos());
        if (!same(x, y)) {
          out.add(f.name() + ": recorded " + x + ", recomputed " + y);
        }
      }
    }
    if (out.isEmpty()) {
      out.add("recorded " + recorded + ", recomputed " + recomputed);
    }
    return out;
  }

  /**
   * Structural equality of two decoded values: records field by field, lists element by element,
   * maps entry by entry, strings by their characters, anything else by {@code equals}. Not Avro's
   * {@code equals}: it compares through {@code GenericData.compare}, which cannot resolve a union
   * holding a logical-type value (a victim's nullable {@code retryAfter} instant) and throws.
   */
  static boolean same(Object a, Object b) {
    if (a == b) {
      return true;
    }
    if (a == null || b == null) {
      return false;
    }
    if (a instanceof IndexedRecord x && b instanceof IndexedRecord y) {
      if (!x.getSchema().equals(y.getSchema())) {
        return false;
      }
      for (Schema.Field f : x.getSchema().getFields()) {
        if (!same(x.get(f.pos()), y.get(f.pos()))) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof List<?> x && b instanceof List<?> y) {
      if (x.size() != y.size()) {
        return false;
      }
      for (int i = 0; i < x.size(); i++) {
        if (!same(x.get(i), y.get(i))) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
      if (x.size() != y.size()) {
        return false;
      }
      Map<String, Object> byKey = new HashMap<>();
      x.forEach((k, v) -> byKey.put(String.valueOf(k), v));
      for (var e : y.entrySet()) {
        String k = String.valueOf(e.getKey());
        if (!byKey.containsKey(k) || !same(byKey.get(k), e.getValue())) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof CharSequence x && b instanceof CharSequence y) {
      return x.toString().equals(y.toString());
    }
    return Objects.equals(a, b);
  }

  static String idOf(Object value) {
    for (String f : List.of("decisionId", "evictionId", "requestId", "jobId")) {
      Object v = field(value, f);
      if (v != null) {
        return v.toString();
      }
    }
    return "";
  }

  static Object field(Object value, String name) {
    if (value instanceof GenericContainer c && value instanceof IndexedRecord r) {
      Schema.Field f = c.getSchema().getField(name);
      return f == null ? null : r.get(f.pos());
    }
    return null;
  }

  private static Object decode(Deserializer<Object> avro, String topic, byte[] bytes) {
    try {
      return avro.deserialize(topic, bytes);
    } catch (RuntimeException e) {
      return "<undecodable: " + e.getMessage() + ">";
    }
  }

  private static String key(byte[] key) {
    return key == null ? "" : new String(key, StandardCharsets.UTF_8);
  }

  private static Path tempDir() {
    try {
      return Files.createTempDirectory("tideline-audit-replay");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteTree(Path dir) {
    try (var walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temp directory left behind harms nobody
    }
  }
}
