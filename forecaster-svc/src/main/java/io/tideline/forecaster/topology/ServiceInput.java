package io.tideline.forecaster.topology;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.LocalDate;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * What the per-service stage consumes from its one internal topic: per-task minute counts from
 * the telemetry stage, clock ticks and holiday changes, in one partition so that one task sees
 * every service, one clock and the whole calendar. Internal only, so a compact binary encoding
 * instead of a registry contract.
 */
sealed interface ServiceInput {

  /** Service key of the idle-GPU count (a service id is never empty). */
  String IDLE = "";
  /** Bucket prefix of a GPU held by a job without a service (training, batch): "job:id". */
  String JOB_PREFIX = "job:";
  /** Separates the bucket from the job a carried (STALE) GPU was last seen running. */
  char CARRY_SEPARATOR = '\u001f';

  /** The open-minute key of GPUs carried for {@code bucket} while running {@code job}. */
  static String carryKey(String bucket, String job) {
    return job == null || job.isEmpty() ? bucket : bucket + CARRY_SEPARATOR + job;
  }

  /**
   * GPUs one telemetry task saw in one minute for one service ({@link #IDLE} for idle GPUs).
   *
   * @param serviceId the service, {@link #IDLE}, or {@link #JOB_PREFIX} + a job id
   * @param jobId for carried GPUs, the job they were last seen running ("" otherwise): the
   *     carry ends when that job ends
   * @param minute epoch minute
   * @param counted GPUs with an OK sample attributed to the service
   * @param carried GPUs with only STALE samples, counted for their last service (within the carry)
   * @param unknown GPUs with only STALE samples past the carry: the count is not reliable
   */
  record MinuteCount(String serviceId, String jobId, long minute, int counted, int carried,
      int unknown) implements ServiceInput {

    /** From an open-minute key's bucket part ({@link #carryKey}). */
    static MinuteCount fromKey(String key, long minute, int counted, int carried, int unknown) {
      int sep = key.indexOf(CARRY_SEPARATOR);
      return sep < 0 ? new MinuteCount(key, "", minute, counted, carried, unknown)
          : new MinuteCount(key.substring(0, sep), key.substring(sep + 1), minute, counted,
              carried, unknown);
    }

    /** The key this count sums under: bucket, and job for carried GPUs. */
    String key() {
      return carryKey(serviceId, jobId);
    }

    MinuteCount plus(MinuteCount other) {
      return new MinuteCount(serviceId, jobId, minute, counted + other.counted,
          carried + other.carried, unknown + other.unknown);
    }

    int gpus() {
      return counted + carried;
    }
  }

  /** A clock tick of this cluster: the only source of {@code now}. */
  record Tick(String cluster, long time, long sequence) implements ServiceInput {}

  /** A holiday declared ({@code holiday = true}) or withdrawn (a tombstone). */
  record HolidayChange(LocalDate date, String name, boolean holiday) implements ServiceInput {}

  /**
   * What the forecaster needs of a job (W1): its workload class and service from
   * {@code jobs.submitted} (empty when the fact is a lifecycle one), and whether it has ended
   * ({@code jobs.lifecycle} COMPLETED / FAILED / PREEMPTED) or runs (STARTED / RESUMED).
   *
   * @param endedAt epoch millis of the end, or {@link Long#MIN_VALUE} when running / unknown
   */
  record JobChange(String jobId, String workloadClass, String serviceId, long endedAt)
      implements ServiceInput {

    boolean ended() {
      return endedAt != Long.MIN_VALUE;
    }
  }

  /**
   * A node's GPUs as {@code cluster.inventory} reports them: {@code gpus} for a joined or
   * updated node, 0 for a drained one (no new work) or one that left.
   */
  record NodeChange(String nodeId, int gpus) implements ServiceInput {}

  /** The serde of the internal topic. */
  static Serde<ServiceInput> serde() {
    Serializer<ServiceInput> ser = (topic, input) -> {
      try {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(48);
        DataOutputStream out = new DataOutputStream(bytes);
        if (input instanceof MinuteCount m) {
          out.writeByte(4);
          out.writeUTF(m.serviceId());
          out.writeUTF(m.jobId());
          out.writeLong(m.minute());
          out.writeInt(m.counted());
          out.writeInt(m.carried());
          out.writeInt(m.unknown());
        } else if (input instanceof Tick t) {
          out.writeByte(2);
          out.writeUTF(t.cluster());
          out.writeLong(t.time());
          out.writeLong(t.sequence());
        } else if (input instanceof JobChange j) {
          out.writeByte(5);
          out.writeUTF(j.jobId());
          out.writeUTF(j.workloadClass());
          out.writeUTF(j.serviceId());
          out.writeLong(j.endedAt());
        } else if (input instanceof NodeChange n) {
          out.writeByte(6);
          out.writeUTF(n.nodeId());
          out.writeInt(n.gpus());
        } else if (input instanceof HolidayChange h) {
          out.writeByte(3);
          out.writeLong(h.date().toEpochDay());
          out.writeUTF(h.name());
          out.writeBoolean(h.holiday());
        }
        return bytes.toByteArray();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
    Deserializer<ServiceInput> de = (topic, data) -> {
      try {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
        byte tag = in.readByte();
        return switch (tag) {
          case 1 -> new MinuteCount(in.readUTF(), "", in.readLong(), in.readInt(), in.readInt(),
              in.readInt()); // before jobs were carried
          case 4 -> new MinuteCount(in.readUTF(), in.readUTF(), in.readLong(), in.readInt(),
              in.readInt(), in.readInt());
          case 2 -> new Tick(in.readUTF(), in.readLong(), in.readLong());
          case 3 -> new HolidayChange(LocalDate.ofEpochDay(in.readLong()), in.readUTF(),
              in.readBoolean());
          case 5 -> new JobChange(in.readUTF(), in.readUTF(), in.readUTF(), in.readLong());
          case 6 -> new NodeChange(in.readUTF(), in.readInt());
          default -> throw new IllegalArgumentException("unknown service input tag " + tag);
        };
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
    return Serdes.serdeFrom(ser, de);
  }
}
