package io.tideline.forecaster.topology;

import io.tideline.forecaster.config.ForecastSettings;
import io.tideline.forecaster.topology.ServiceInput.MinuteCount;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The telemetry stage, run where the samples are (partitioned by GPU): turns GPU samples into
 * "GPUs in use per bucket per minute" counts without moving every sample across the network.
 * Only one small count per (bucket, minute) per task goes on to the per-service stage.
 *
 * <p>Attribution (documented choice): a GPU is in use by the service named in its sample's
 * {@code serviceId}; the collector resolves the pod to the service when it samples, so this is
 * the freshest fact and needs no join. A GPU with a job but no service (training, batch) counts
 * for the bucket {@code job:<jobId>}; the per-service stage turns jobs into workload classes
 * (jobs.submitted). A GPU with neither service nor job is idle.
 *
 * <p>STALE samples are never read as 0 usage: a STALE sample counts its GPU for the owner of the
 * GPU's last OK sample while that sample's minute is at most {@code staleCarry} before the stale
 * one's ("carried", naming the job it last ran, so the carry ends with the job); beyond that the
 * owner's minute is marked unknown, and the per-service stage does not record it at all (missing
 * data, not a low value).
 *
 * <p>Time: a minute closes when this task has seen a sample {@code sampleGrace} after the
 * minute's end (event time of the samples, never the wall clock). Each GPU is counted at most
 * once a minute (its first attribution in the minute); samples for a closed minute are dropped
 * as late.
 *
 * <p>Cost (the hot path, see ForecastThroughputBenchmark): per sample, one projection decode and
 * one in-memory lookup; per GPU and minute, one store write. The per-minute counts are not
 * stored: they are derived from the GPU marks when the minute closes (each mark remembers the
 * minutes it is counted in that are still open), so the store holds everything a restart needs
 * and the counts cannot disagree with the marks.
 */
final class UsageMarker implements Processor<byte[], byte[], String, Object> {

  private static final long MINUTE = 60_000L;
  private static final String CLOSED_BELOW = "closedBelow";

  private final ForecastSettings settings;
  private final ForecastMeters meters;
  private final Decoder<SampleFacts> decoder;
  /** How many minutes a GPU can be counted in before the oldest closes. */
  private final int openSlots;
  /** Every GPU mark of this task, loaded from the GPUS store at init; the store stays the truth. */
  private final Map<String, GpuMark> marks = new HashMap<>();
  private ProcessorContext<String, Object> context;
  private KeyValueStore<String, byte[]> gpus;
  private KeyValueStore<String, Long> clock;
  /** Highest sample time seen by this task; derived, so kept in memory (rebuilt after restart). */
  private long watermark = Long.MIN_VALUE;
  private Long closed;

  /**
   * A refused sample on its way to {@code gpu.telemetry.dlq}, with its original key.
   *
   * @param key the original key bytes
   * @param letter the dead letter
   */
  record Refused(byte[] key, io.tideline.events.DeadLetter letter) {}

  UsageMarker(ForecastSettings settings, ForecastMeters meters, Decoder<SampleFacts> decoder) {
    this.settings = settings;
    this.meters = meters;
    this.decoder = decoder;
    // minute m closes once a sample of m + 1 min + grace is seen: until then m, m+1, ... open.
    this.openSlots = (int) (settings.sampleGrace().toMillis() / MINUTE) + 2;
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.gpus = context.getStateStore(ForecastStores.GPUS);
    this.clock = context.getStateStore(ForecastStores.TELEMETRY_CLOCK);
    this.closed = clock.get(CLOSED_BELOW);
    // A (re-)initialised task (start, rebalance, EOS abort) starts from its stores.
    this.watermark = Long.MIN_VALUE;
    this.marks.clear();
    try (KeyValueIterator<String, byte[]> it = gpus.all()) {
      it.forEachRemaining(kv -> marks.put(kv.key, GpuMark.fromBytes(kv.value, openSlots)));
    }
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    // 0. Decode here rather than in a step of its own: one forward less per sample. Only the
    //    five fields the forecaster uses are read (SampleFactsReader).
    var where = context.recordMetadata().orElse(null);
    Decoded<SampleFacts> decoded = decoder.decode(where == null ? "unknown" : where.topic(),
        where == null ? -1 : where.partition(), where == null ? -1 : where.offset(),
        record.key(), record.value(), record.headers(), record.timestamp());
    if (decoded.refused()) {
      context.forward(new Record<>("", new Refused(record.key(), decoded.deadLetter()),
          record.timestamp()));
      return;
    }
    SampleFacts sample = decoded.value();
    long at = sample.sampledAt();
    long minute = Math.floorDiv(at, MINUTE);

    // 1. Advance this task's event-time watermark; close the minutes it has passed.
    long closedBelow = closeMinutes(at);
    if (minute < closedBelow) {
      meters.sample(ForecastMeters.LATE);
      return;
    }

    // 2. Decide which bucket (service, job, idle, or none) the sample counts the GPU in.
    GpuMark mark = marks.computeIfAbsent(sample.gpuId(), g -> new GpuMark(openSlots));
    String service = blankToNull(sample.serviceId());
    String job = blankToNull(sample.jobId());
    String bucket;
    String outcome;
    byte kind = GpuMark.COUNTED;
    String carriedJob = null;
    boolean dirty = false;
    if (!sample.stale()) {
      if (service != null) {
        bucket = service;
        outcome = ForecastMeters.COUNTED;
      } else if (job != null) {
        bucket = ServiceInput.JOB_PREFIX + job; // training / batch: per workload class later
        outcome = ForecastMeters.JOB;
      } else {
        bucket = ServiceInput.IDLE;
        outcome = ForecastMeters.IDLE;
      }
      if (minute > mark.lastOkMinute || (minute == mark.lastOkMinute
          && !(bucket.equals(mark.lastBucket) && (job == null ? "" : job).equals(mark.lastJob)))) {
        mark.lastOkMinute = minute;
        mark.lastBucket = bucket;
        mark.lastJob = job == null ? "" : job;
        dirty = true;
      }
    } else {
      // 3. STALE: the figures are absent; carry the last known owner, never count 0. The
      //    carried count names the job, so the per-service stage can end the carry at the
      //    job's end (jobs.lifecycle).
      String last = service != null ? service
          : job != null ? ServiceInput.JOB_PREFIX + job : blankToNull(mark.lastBucket);
      carriedJob = job != null ? job : mark.lastJob;
      if (last == null) {
        bucket = null;
        outcome = ForecastMeters.UNATTRIBUTED;
      } else if (mark.lastOkMinute != Long.MIN_VALUE
          && (minute - mark.lastOkMinute) * MINUTE <= settings.staleCarry().toMillis()) {
        bucket = last;
        outcome = ForecastMeters.CARRIED;
        kind = GpuMark.CARRIED;
      } else {
        bucket = last;
        outcome = ForecastMeters.UNKNOWN;
        kind = GpuMark.UNKNOWN;
      }
    }

    // 4. Count the GPU once per minute: its first attribution in the minute.
    if (bucket != null) {
      if (minute <= mark.minutes[0]) {
        outcome = ForecastMeters.REPEAT;
      } else {
        mark.count(minute, kind == GpuMark.CARRIED
            ? ServiceInput.carryKey(bucket, carriedJob) : bucket, kind);
        dirty = true;
      }
    }
    meters.sample(outcome);
    if (dirty) {
      gpus.put(sample.gpuId(), mark.toBytes()); // about once per GPU per minute
    }
  }

  /**
   * Closes every open minute the watermark has passed by the grace: sums the marks counted in
   * each closing minute per bucket and forwards the counts; returns the close mark.
   */
  private long closeMinutes(long at) {
    watermark = Math.max(watermark, at);
    long closeBelow = Math.floorDiv(watermark - settings.sampleGrace().toMillis(), MINUTE);
    if (closed != null && closeBelow <= closed) {
      return closed;
    }
    long from = closed == null ? Long.MIN_VALUE : closed;
    TreeMap<Long, TreeMap<String, int[]>> due = new TreeMap<>();
    for (GpuMark mark : marks.values()) {
      for (int s = 0; s < openSlots; s++) {
        long m = mark.minutes[s];
        if (m != Long.MIN_VALUE && m >= from && m < closeBelow) {
          due.computeIfAbsent(m, x -> new TreeMap<>())
              .computeIfAbsent(mark.keys[s], x -> new int[3])[mark.kinds[s]]++;
        }
      }
    }
    due.forEach((minute, buckets) -> buckets.forEach((key, c) -> {
      MinuteCount count = MinuteCount.fromKey(key, minute, c[0], c[1], c[2]);
      context.forward(new Record<>(count.serviceId(), count, (minute + 1) * MINUTE));
    }));
    clock.put(CLOSED_BELOW, closeBelow);
    closed = closeBelow;
    return closeBelow;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }

  /**
   * What the telemetry stage remembers of one GPU: its last OK owner (for the stale carry) and
   * the minutes it is counted in, newest first, with the bucket key and kind of each.
   */
  static final class GpuMark {
    static final byte COUNTED = 0;
    static final byte CARRIED = 1;
    static final byte UNKNOWN = 2;
    private static final byte FORMAT = 0x7F; // never the first byte of the older format

    long lastOkMinute = Long.MIN_VALUE;
    String lastBucket = "";
    String lastJob = "";
    final long[] minutes;
    final String[] keys;
    final byte[] kinds;

    GpuMark(int slots) {
      minutes = new long[slots];
      keys = new String[slots];
      kinds = new byte[slots];
      java.util.Arrays.fill(minutes, Long.MIN_VALUE);
      java.util.Arrays.fill(keys, "");
    }

    /** Counts the GPU in {@code minute} (newer than any counted): the oldest slot drops out. */
    void count(long minute, String key, byte kind) {
      System.arraycopy(minutes, 0, minutes, 1, minutes.length - 1);
      System.arraycopy(keys, 0, keys, 1, keys.length - 1);
      System.arraycopy(kinds, 0, kinds, 1, kinds.length - 1);
      minutes[0] = minute;
      keys[0] = key;
      kinds[0] = kind;
    }

    /** A mark from its bytes; an unreadable (older-format) mark restarts empty. */
    static GpuMark fromBytes(byte[] bytes, int slots) {
      GpuMark m = new GpuMark(slots);
      if (bytes == null || bytes.length == 0 || bytes[0] != FORMAT) {
        return m;
      }
      ByteBuffer b = ByteBuffer.wrap(bytes, 1, bytes.length - 1);
      m.lastOkMinute = b.getLong();
      m.lastBucket = string(b);
      m.lastJob = string(b);
      int stored = b.get();
      for (int s = 0; s < stored; s++) {
        long minute = b.getLong();
        byte kind = b.get();
        String key = string(b);
        if (s < slots) {
          m.minutes[s] = minute;
          m.kinds[s] = kind;
          m.keys[s] = key;
        }
      }
      return m;
    }

    byte[] toBytes() {
      byte[] bucket = lastBucket.getBytes(StandardCharsets.UTF_8);
      byte[] job = lastJob.getBytes(StandardCharsets.UTF_8);
      byte[][] keyBytes = new byte[keys.length][];
      int size = 1 + 8 + 4 + bucket.length + 4 + job.length + 1;
      for (int s = 0; s < keys.length; s++) {
        keyBytes[s] = keys[s].getBytes(StandardCharsets.UTF_8);
        size += 8 + 1 + 4 + keyBytes[s].length;
      }
      ByteBuffer b = ByteBuffer.allocate(size).put(FORMAT).putLong(lastOkMinute);
      b.putInt(bucket.length).put(bucket).putInt(job.length).put(job).put((byte) keys.length);
      for (int s = 0; s < keys.length; s++) {
        b.putLong(minutes[s]).put(kinds[s]).putInt(keyBytes[s].length).put(keyBytes[s]);
      }
      return b.array();
    }

    private static String string(ByteBuffer b) {
      byte[] bytes = new byte[b.getInt()];
      b.get(bytes);
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }
}
