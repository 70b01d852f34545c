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

  /**
   * GPUs one telemetry task saw in one minute for one service ({@link #IDLE} for idle GPUs).
   *
   * @param serviceId the service, or {@link #IDLE}
   * @param minute epoch minute
   * @param counted GPUs with an OK sample attributed to the service
   * @param carried GPUs with only STALE samples, counted for their last service (within the carry)
   * @param unknown GPUs with only STALE samples past the carry: the count is not reliable
   */
  record MinuteCount(String serviceId, long minute, int counted, int carried, int unknown)
      implements ServiceInput {

    MinuteCount plus(MinuteCount other) {
      return new MinuteCount(serviceId, minute, counted + other.counted,
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

  /** The serde of the internal topic. */
  static Serde<ServiceInput> serde() {
    Serializer<ServiceInput> ser = (topic, input) -> {
      try {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(48);
        DataOutputStream out = new DataOutputStream(bytes);
        if (input instanceof MinuteCount m) {
          out.writeByte(1);
          out.writeUTF(m.serviceId());
          out.writeLong(m.minute());
          out.writeInt(m.counted());
          out.writeInt(m.carried());
          out.writeInt(m.unknown());
        } else if (input instanceof Tick t) {
          out.writeByte(2);
          out.writeUTF(t.cluster());
          out.writeLong(t.time());
          out.writeLong(t.sequence());
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
          case 1 -> new MinuteCount(in.readUTF(), in.readLong(), in.readInt(), in.readInt(),
              in.readInt());
          case 2 -> new Tick(in.readUTF(), in.readLong(), in.readLong());
          case 3 -> new HolidayChange(LocalDate.ofEpochDay(in.readLong()), in.readUTF(),
              in.readBoolean());
          default -> throw new IllegalArgumentException("unknown service input tag " + tag);
        };
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
    return Serdes.serdeFrom(ser, de);
  }
}
