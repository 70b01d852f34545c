package io.tideline.placement.ledger;

import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.GpuRef;
import io.tideline.core.cluster.Reservation;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * GPUs kept off the market until other jobs have moved: freed GPUs held for a preemptor until its
 * victims report stopped (P, ARCHITECTURE "holds the freed GPUs for the preemptor"), GPUs held for
 * a job a passive defragmentation unlocked, and the source GPUs of a migration until the migrant
 * runs at its target. In the ledger a hold is a {@link Reservation} nobody is permitted to use, so
 * the core's placement never hands those GPUs to anyone else.
 *
 * @param id hold id, also the id and service of its reservation
 * @param kind what is being waited for
 * @param holder job bound to the GPUs when the wait is over, or {@code ""} for none
 * @param decisionId the decision that created the hold
 * @param waitingFor jobs still to stop (PREEMPT) or to arrive at their target (migrations)
 * @param assignments the held GPU shares; the holder's placement once bound
 */
record Hold(String id, Kind kind, String holder, String decisionId, Set<String> waitingFor,
    List<GpuAssignment> assignments) {

  /** Why GPUs are held. */
  enum Kind {
    /** For a preemptor until its victims report PREEMPTED (or ended). */
    PREEMPT,
    /** For a job a passive defragmentation unlocked, until its migrants run at their targets. */
    DEFRAG_JOB,
    /** A migrant's source GPUs until it runs at its target (T3; no double use mid-move). */
    MIGRATION
  }

  Hold {
    waitingFor = new TreeSet<>(waitingFor);
    assignments = List.copyOf(assignments);
  }

  /** Whether lifecycle type {@code type} of a job in {@link #waitingFor} ends the wait for it. */
  boolean drainedBy(String type) {
    return switch (type) {
      case "PREEMPTED", "COMPLETED", "FAILED" -> true;
      case "STARTED", "RESUMED" -> kind != Kind.PREEMPT;
      default -> false;
    };
  }

  /** The ledger reservation that keeps everyone else off the held GPUs. */
  Reservation reservation() {
    TreeSet<GpuRef> gpus = new TreeSet<>();
    assignments.forEach(a -> gpus.add(a.gpu()));
    return new Reservation(id, id, gpus, Instant.EPOCH, null);
  }

  /** The same hold without {@code jobId} in the wait list. */
  Hold without(String jobId) {
    TreeSet<String> w = new TreeSet<>(waitingFor);
    w.remove(jobId);
    return new Hold(id, kind, holder, decisionId, w, assignments);
  }

  byte[] encode() {
    StringBuilder s = new StringBuilder();
    s.append(kind).append('\t').append(holder).append('\t').append(decisionId).append('\t')
        .append(String.join(",", waitingFor)).append('\t');
    for (GpuAssignment a : assignments) {
      s.append(a.nodeId()).append('/').append(a.gpuIndex()).append('/').append(a.share())
          .append(';');
    }
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  static Hold decode(String id, byte[] bytes) {
    String[] f = new String(bytes, StandardCharsets.UTF_8).split("\t", -1);
    TreeSet<String> waiting = new TreeSet<>();
    for (String w : f[3].split(",")) {
      if (!w.isEmpty()) {
        waiting.add(w);
      }
    }
    List<GpuAssignment> as = new ArrayList<>();
    for (String a : f[4].split(";")) {
      if (!a.isEmpty()) {
        int s2 = a.lastIndexOf('/');
        int s1 = a.lastIndexOf('/', s2 - 1);
        as.add(new GpuAssignment(a.substring(0, s1), Integer.parseInt(a.substring(s1 + 1, s2)),
            Double.parseDouble(a.substring(s2 + 1))));
      }
    }
    return new Hold(id, Kind.valueOf(f[0]), f[1], f[2], waiting, as);
  }

  /** Encodes a service reservation: service, startsAt, releasedAt (or -), GPUs. */
  static byte[] encodeReservation(Reservation r) {
    StringBuilder s = new StringBuilder();
    s.append(r.serviceId()).append('\t').append(r.startsAt().toEpochMilli()).append('\t')
        .append(r.releasedAt() == null ? "-" : Long.toString(r.releasedAt().toEpochMilli()))
        .append('\t');
    for (GpuRef g : r.gpus()) {
      s.append(g.nodeId()).append('/').append(g.gpuIndex()).append(';');
    }
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  static Reservation decodeReservation(String id, byte[] bytes) {
    String[] f = new String(bytes, StandardCharsets.UTF_8).split("\t", -1);
    TreeSet<GpuRef> gpus = new TreeSet<>();
    for (String g : f[3].split(";")) {
      if (!g.isEmpty()) {
        int s = g.lastIndexOf('/');
        gpus.add(new GpuRef(g.substring(0, s), Integer.parseInt(g.substring(s + 1))));
      }
    }
    return new Reservation(id, f[0], gpus, Instant.ofEpochMilli(Long.parseLong(f[1])),
        "-".equals(f[2]) ? null : Instant.ofEpochMilli(Long.parseLong(f[2])));
  }
}
