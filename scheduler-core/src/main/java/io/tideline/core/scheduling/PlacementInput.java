package io.tideline.core.scheduling;

import io.tideline.core.cluster.state.Admission;
import io.tideline.core.cluster.state.ClusterFact;
import io.tideline.core.cluster.state.NodeRecord;
import io.tideline.core.kernel.Timed;
import io.tideline.core.model.JobRequest;
import io.tideline.core.slots.SlotClass;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What the placement kernel reads besides {@link io.tideline.core.kernel.Tick}s. Each input
 * {@linkplain Timed orders itself} in the cycle: facts first (inventory, submissions, verdicts,
 * lifecycle, forecasts), then requests (reservations, quota's reclaims, preemption answers — a
 * reclaim before the answer of its instant); ties by the key its topic is keyed by.
 */
public sealed interface PlacementInput extends Timed permits PlacementInput.Inventory,
    PlacementInput.Submission, PlacementInput.Verdict, PlacementInput.Lifecycle,
    PlacementInput.Forecast, PlacementInput.ReservationCommand, PlacementInput.Reclaim,
    PlacementInput.PreemptionAnswer, PlacementInput.ClockTick {

  /** The cluster's clock ticked: the kernel decides (never enters the inbox). */
  record ClockTick(io.tideline.core.kernel.Tick tick) implements PlacementInput {
    public ClockTick {
      Objects.requireNonNull(tick, "tick");
    }

    @Override public Instant at() { return tick.at(); }
    @Override public int rank() { return Integer.MAX_VALUE; }
    @Override public String key() { return tick.cluster(); }
  }

  /** Inventory says this of a node ({@code cluster.inventory}, keyed by node). */
  record Inventory(NodeRecord node) implements PlacementInput {
    public Inventory {
      Objects.requireNonNull(node, "node");
    }

    @Override public Instant at() { return node.observedAt(); }
    @Override public int rank() { return 0; }
    @Override public String key() { return node.id(); }
  }

  /** A job was submitted ({@code jobs.submitted}, keyed by job). */
  record Submission(JobRequest job) implements PlacementInput {
    public Submission {
      Objects.requireNonNull(job, "job");
    }

    @Override public Instant at() { return job.submittedAt(); }
    @Override public int rank() { return 1; }
    @Override public String key() { return job.jobId(); }
  }

  /** Quota decided on a job ({@code quota.verdicts}, keyed by job). */
  record Verdict(String jobId, Admission admission) implements PlacementInput {
    public Verdict {
      Objects.requireNonNull(jobId, "jobId");
      Objects.requireNonNull(admission, "admission");
    }

    @Override public Instant at() { return admission.decidedAt(); }
    @Override public int rank() { return 2; }
    @Override public String key() { return jobId; }
  }

  /** The executor reports what happened to a job ({@code jobs.lifecycle}, keyed by job). */
  record Lifecycle(ClusterFact.Lifecycle fact) implements PlacementInput {
    public Lifecycle {
      Objects.requireNonNull(fact, "fact");
    }

    @Override public Instant at() { return fact.at(); }
    @Override public int rank() { return 3; }
    @Override public String key() { return fact.jobId(); }
  }

  /**
   * The forecaster's slot class for a slot (F4, {@code forecast.slots}, keyed by service).
   *
   * @param serviceId the service the forecast is for ({@code *} for the fleet profile)
   * @param slotStart start of the slot
   * @param slotEnd end of the slot
   * @param slotClass the slot's class, or {@code null} when unknown
   * @param computedAt when the forecaster computed it
   */
  record Forecast(String serviceId, Instant slotStart, Instant slotEnd, SlotClass slotClass,
      Instant computedAt) implements PlacementInput {
    public Forecast {
      Objects.requireNonNull(serviceId, "serviceId");
      Objects.requireNonNull(slotStart, "slotStart");
      Objects.requireNonNull(slotEnd, "slotEnd");
      Objects.requireNonNull(computedAt, "computedAt");
    }

    @Override public Instant at() { return computedAt; }
    @Override public int rank() { return 4; }
    @Override public String key() { return serviceId; }
  }

  /**
   * The forecaster asks for (or gives back) GPUs for a service (F2/F3,
   * {@code capacity.reservations}, keyed by service).
   *
   * @param reservationId the forecaster's reservation id
   * @param serviceId the online service
   * @param action reserve ahead, over-issue from the pool, or release
   * @param gpus GPUs asked for or given back
   * @param validFrom when the service may claim them
   * @param validUntil when they stop being held
   * @param issuedAt when the forecaster decided
   * @param expectedGpus RESERVE: how many of {@code gpus} the forecast median expects the rise to
   *     use; the reservation's start evicts for these only ({@link
   *     io.tideline.core.cluster.Reservation#expectedGpus()}); {@code gpus} when not said
   */
  record ReservationCommand(String reservationId, String serviceId, Action action, double gpus,
      Instant validFrom, Instant validUntil, Instant issuedAt, double expectedGpus)
      implements PlacementInput {

    /** A command whose every GPU is expected to be used. */
    public ReservationCommand(String reservationId, String serviceId, Action action, double gpus,
        Instant validFrom, Instant validUntil, Instant issuedAt) {
      this(reservationId, serviceId, action, gpus, validFrom, validUntil, issuedAt, gpus);
    }

    /** What the forecaster asks. */
    public enum Action { RESERVE, RELEASE, OVER_ISSUE }

    public ReservationCommand {
      Objects.requireNonNull(reservationId, "reservationId");
      Objects.requireNonNull(serviceId, "serviceId");
      Objects.requireNonNull(action, "action");
      Objects.requireNonNull(validFrom, "validFrom");
      Objects.requireNonNull(validUntil, "validUntil");
      Objects.requireNonNull(issuedAt, "issuedAt");
    }

    @Override public Instant at() { return issuedAt; }
    @Override public int rank() { return 5; }
    @Override public String key() { return serviceId; }
  }

  /**
   * Quota names jobs to reclaim ({@code quota.reclaims}, keyed by job): placement applies a
   * reclaim-triggered answer of preemption only to the jobs quota named ({@link AnswerRules}).
   *
   * @param jobId SHRINK/RECLAIM: the idle job; GUARANTEE: the guaranteed job (the beneficiary)
   * @param action what quota asks
   * @param named the jobs it names: the idle job for SHRINK/RECLAIM, each borrower for GUARANTEE
   * @param recommendedGpus SHRINK: the GPUs the job keeps; 0 otherwise
   * @param reclaimId quota's id of the request ({@code ""} when quota gives none)
   * @param decidedAt when quota decided (cluster time)
   */
  record Reclaim(String jobId, Action action, List<String> named, int recommendedGpus,
      String reclaimId, Instant decidedAt) implements PlacementInput {

    /** What quota asks. */
    public enum Action { SHRINK, RECLAIM, GUARANTEE }

    public Reclaim {
      Objects.requireNonNull(jobId, "jobId");
      Objects.requireNonNull(action, "action");
      Objects.requireNonNull(reclaimId, "reclaimId");
      Objects.requireNonNull(decidedAt, "decidedAt");
      named = List.copyOf(named);
    }

    @Override public Instant at() { return decidedAt; }
    @Override public int rank() { return 6; }
    @Override public String key() { return jobId; }
  }

  /**
   * Preemption's answer ({@code preemption.decisions}, keyed by cluster): to placement's request,
   * or to quota's reclaim (idle, shrink, guarantee).
   *
   * @param decisionId the decision's id
   * @param requestId the request it answers
   * @param subject the preemptor job, {@code reservation/<id>}, or the reclaim's subject
   * @param trigger why preemption decided
   * @param preempts whether it decided to evict (false: refused)
   * @param victims the jobs to evict, each with the GPUs it keeps after a shrink (0: all stop)
   * @param preemptorScore P1 score of the preemptor (for the trace)
   * @param ledgerVersion ledger version the plan was made on
   * @param decidedAt when preemption decided
   */
  record PreemptionAnswer(String decisionId, String requestId, String subject, Trigger trigger,
      boolean preempts, List<AnswerVictim> victims, double preemptorScore, long ledgerVersion,
      Instant decidedAt, String cluster) implements PlacementInput {

    /** Why preemption decided. */
    public enum Trigger { UNPLACEABLE, RESERVATION_START, IDLE_RECLAIM, GUARANTEE_RECLAIM, SHRINK }

    public PreemptionAnswer {
      Objects.requireNonNull(decisionId, "decisionId");
      Objects.requireNonNull(requestId, "requestId");
      Objects.requireNonNull(subject, "subject");
      Objects.requireNonNull(trigger, "trigger");
      Objects.requireNonNull(decidedAt, "decidedAt");
      Objects.requireNonNull(cluster, "cluster");
      victims = List.copyOf(victims);
    }

    @Override public Instant at() { return decidedAt; }
    @Override public int rank() { return 7; }
    @Override public String key() { return cluster; }
  }

  /**
   * One victim of a decision.
   *
   * @param jobId the job
   * @param shrinkToGpus for a SHRINK: the GPUs it runs on afterwards; 0 otherwise
   */
  record AnswerVictim(String jobId, int shrinkToGpus) {
    public AnswerVictim {
      Objects.requireNonNull(jobId, "jobId");
    }
  }
}
