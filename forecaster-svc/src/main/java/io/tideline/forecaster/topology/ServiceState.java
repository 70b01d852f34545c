package io.tideline.forecaster.topology;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What the forecaster knows of one service's position between ticks, so the reservation planner
 * gets the same snapshot after a restart (restored from the changelog).
 *
 * <p>Holding model (documented choice, the forecaster sees telemetry, not the allocation ledger):
 * a slot's <em>plan</em> is made at its reserve instant and says how many GPUs the service holds
 * on its own account in the slot ({@code held} = its base plus any reservation). During the slot,
 * usage above {@code held} minus released GPUs is an under-forecast (F3 over-issue); a slot
 * without a plan (no history yet) takes current usage as what is held.
 */
final class ServiceState {

  /** GPUs in use in the last recorded minute (counted + carried). */
  int inUse;
  /** Epoch minute of {@link #inUse}, or -1 before any. */
  long inUseMinute = -1;
  /** Over-issued GPUs in force, and until when (epoch millis). */
  int overIssued;
  long overIssuedUntil;
  /** Plans of the current and the next slot. */
  final List<Plan> plans = new ArrayList<>(2);

  /**
   * One slot's holding.
   *
   * @param start slot start, epoch millis
   * @param end slot end (exclusive), epoch millis
   * @param held GPUs held on the service's own account in the slot (base + reserved)
   * @param reserved GPUs reserved for the slot by a RESERVE (0 when none)
   * @param released of {@code reserved}, GPUs given back early
   */
  record Plan(long start, long end, int held, int reserved, int released) {
    Plan release(int gpus) {
      return new Plan(start, end, held, reserved, released + gpus);
    }
  }

  /** The plan of the slot holding {@code now}, or null. */
  Plan planAt(long now) {
    for (Plan p : plans) {
      if (p.start() <= now && now < p.end()) {
        return p;
      }
    }
    return null;
  }

  void replace(Plan old, Plan updated) {
    plans.set(plans.indexOf(old), updated);
  }

  /** Puts the plan of a slot, replacing an earlier plan of the same slot. */
  void putPlan(Plan plan) {
    plans.removeIf(p -> p.start() == plan.start());
    plans.add(plan);
  }

  /** Forgets what ended at or before {@code now}. */
  void expire(long now) {
    plans.removeIf(p -> p.end() <= now);
    if (overIssuedUntil <= now) {
      overIssued = 0;
      overIssuedUntil = 0;
    }
  }

  byte[] toBytes() {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(96);
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeByte(1);
      out.writeInt(inUse);
      out.writeLong(inUseMinute);
      out.writeInt(overIssued);
      out.writeLong(overIssuedUntil);
      out.writeInt(plans.size());
      for (Plan p : plans) {
        out.writeLong(p.start());
        out.writeLong(p.end());
        out.writeInt(p.held());
        out.writeInt(p.reserved());
        out.writeInt(p.released());
      }
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ServiceState fromBytes(byte[] bytes) {
    ServiceState s = new ServiceState();
    if (bytes == null) {
      return s;
    }
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
      byte version = in.readByte();
      if (version != 1) {
        throw new IllegalStateException("unknown service state version " + version);
      }
      s.inUse = in.readInt();
      s.inUseMinute = in.readLong();
      s.overIssued = in.readInt();
      s.overIssuedUntil = in.readLong();
      int n = in.readInt();
      for (int i = 0; i < n; i++) {
        s.plans.add(new Plan(in.readLong(), in.readLong(), in.readInt(), in.readInt(),
            in.readInt()));
      }
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
