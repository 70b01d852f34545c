package io.tideline.forecaster.topology;

import io.tideline.forecaster.config.ForecastSettings;
import io.tideline.forecaster.topology.ServiceInput.MinuteCount;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The telemetry stage, run where the samples are (partitioned by GPU): turns GPU samples into
 * "GPUs in use per service per minute" counts without moving every sample across the network.
 * Only one small count per (service, minute) per task goes on to the per-service stage.
 *
 * <p>Attribution (documented choice): a GPU is in use by the service named in its sample's
 * {@code serviceId}; the collector resolves the pod to the service when it samples, so this is
 * the freshest fact and needs no join. A GPU with neither service nor job is idle (the bound of
 * what the shared pool can lend, F3). A GPU with a job but no service runs training or batch work
 * and is not counted.
 *
 * <p>STALE samples are never read as 0 usage: a STALE sample counts its GPU for the service of
 * the GPU's last OK sample while that sample's minute is at most {@code staleCarry} before
 * the stale one's ("carried");
 * beyond that the service's minute is marked unknown, and the per-service stage does not record
 * it at all (missing data, not a low value).
 *
 * <p>Time: a minute closes when this task has seen a sample {@code sampleGrace} after the
 * minute's end (event time of the samples, never the wall clock). Each GPU is counted at most
 * once a minute; samples for a minute that has already closed are dropped as late.
 */
final class UsageMarker implements Processor<byte[], byte[], String, Object> {

  private static final long MINUTE = 60_000L;
  private static final String CLOSED_BELOW = "closedBelow";

  private final ForecastSettings settings;
  private final ForecastMeters meters;
  private final Decoder<SampleFacts> decoder;
  /** Read-through copy of the GPUS store (see {@link #mark}); cleared on every init. */
  private final Map<String, GpuMark> marks = new HashMap<>();
  private ProcessorContext<String, Object> context;
  private KeyValueStore<String, byte[]> gpus;
  private KeyValueStore<String, byte[]> openMinutes;
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
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.gpus = context.getStateStore(ForecastStores.GPUS);
    this.openMinutes = context.getStateStore(ForecastStores.OPEN_MINUTES);
    this.clock = context.getStateStore(ForecastStores.TELEMETRY_CLOCK);
    this.closed = clock.get(CLOSED_BELOW);
    // A re-initialised task (rebalance, EOS abort) starts from its stores, not from memory.
    this.marks.clear();
    this.watermark = Long.MIN_VALUE;
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
    GpuMark mark = mark(sample.gpuId());
    String service = blankToNull(sample.serviceId());
    String job = blankToNull(sample.jobId());
    String bucket;
    String outcome;
    String carriedJob = null;
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
      if (minute >= mark.lastOkMinute) {
        mark.lastOkMinute = minute;
        mark.lastBucket = bucket;
        mark.lastJob = job == null ? "" : job;
        mark.dirty = true;
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
      } else {
        bucket = last;
        outcome = ForecastMeters.UNKNOWN;
      }
    }

    // 4. Count the GPU once per minute.
    if (bucket != null) {
      if (minute < mark.countedMinute
          || (minute == mark.countedMinute && bucket.equals(mark.countedBucket))) {
        outcome = ForecastMeters.REPEAT;
      } else {
        String key = ForecastStores.minuteKey(minute, ForecastMeters.CARRIED.equals(outcome)
            ? ServiceInput.carryKey(bucket, carriedJob) : bucket);
        int[] counts = decodeCounts(openMinutes.get(key));
        if (ForecastMeters.UNKNOWN.equals(outcome)) {
          counts[2]++;
        } else if (ForecastMeters.CARRIED.equals(outcome)) {
          counts[1]++;
        } else {
          counts[0]++;
        }
        openMinutes.put(key, encodeCounts(counts));
        mark.countedMinute = minute;
        mark.countedBucket = bucket;
        mark.dirty = true;
      }
    }
    meters.sample(outcome);
    if (mark.dirty) {
      gpus.put(sample.gpuId(), mark.toBytes()); // once per GPU per minute, not per sample
      mark.dirty = false;
    }
  }

  /**
   * The GPU's mark: from memory, else from the store (after a restart or a rebalance). The store
   * stays the truth (changelogged, written whenever the mark changes); the map only saves a
   * store read and a decode per sample.
   */
  private GpuMark mark(String gpuId) {
    GpuMark mark = marks.get(gpuId);
    if (mark == null) {
      mark = GpuMark.fromBytes(gpus.get(gpuId));
      marks.put(gpuId, mark);
    }
    return mark;
  }

  /** Closes every open minute the watermark has passed by the grace; returns the close mark. */
  private long closeMinutes(long at) {
    watermark = Math.max(watermark, at);
    long closeBelow = Math.floorDiv(watermark - settings.sampleGrace().toMillis(), MINUTE);
    if (closed != null && closeBelow <= closed) {
      return closed;
    }
    List<KeyValue<String, byte[]>> due = new ArrayList<>();
    try (KeyValueIterator<String, byte[]> it =
        openMinutes.range(null, ForecastStores.minuteBound(closeBelow))) {
      it.forEachRemaining(due::add);
    }
    for (KeyValue<String, byte[]> entry : due) {
      int bar = entry.key.indexOf('|');
      long minute = Long.parseLong(entry.key.substring(0, bar));
      int[] c = decodeCounts(entry.value);
      MinuteCount count = MinuteCount.fromKey(entry.key.substring(bar + 1), minute, c[0], c[1],
          c[2]);
      context.forward(new Record<>(count.serviceId(), count, (minute + 1) * MINUTE));
      openMinutes.delete(entry.key);
    }
    clock.put(CLOSED_BELOW, closeBelow);
    closed = closeBelow;
    return closeBelow;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }

  private static int[] decodeCounts(byte[] bytes) {
    if (bytes == null) {
      return new int[3];
    }
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(bytes);
    return new int[] {b.getInt(), b.getInt(), b.getInt()};
  }

  private static byte[] encodeCounts(int[] c) {
    return java.nio.ByteBuffer.allocate(12).putInt(c[0]).putInt(c[1]).putInt(c[2]).array();
  }

  /** What the telemetry stage remembers of one GPU. */
  private static final class GpuMark {
    long lastOkMinute = Long.MIN_VALUE;
    String lastBucket = "";
    String lastJob = "";
    long countedMinute = Long.MIN_VALUE;
    String countedBucket = "";
    boolean dirty;

    static GpuMark fromBytes(byte[] bytes) {
      GpuMark m = new GpuMark();
      if (bytes == null) {
        return m;
      }
      try {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        m.lastOkMinute = in.readLong();
        m.lastBucket = in.readUTF();
        m.countedMinute = in.readLong();
        m.countedBucket = in.readUTF();
        m.lastJob = in.available() > 0 ? in.readUTF() : ""; // absent in marks before jobs
        return m;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    byte[] toBytes() {
      try {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(48);
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeLong(lastOkMinute);
        out.writeUTF(lastBucket);
        out.writeLong(countedMinute);
        out.writeUTF(countedBucket);
        out.writeUTF(lastJob);
        return bytes.toByteArray();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
