package io.tideline.core.quota.kernel;

import io.tideline.core.kernel.Tick;
import io.tideline.core.kernel.Timed;
import io.tideline.core.model.JobRequest;
import io.tideline.core.quota.QuotaDefinition;
import java.time.Instant;
import java.util.Objects;

/**
 * An input of the {@link QuotaKernel}: a {@link Clock} tick, on which it decides, or a
 * {@link Buffered} input, which waits in the kernel's inbox until the first tick after its event
 * time. Core types, not the Avro contracts: the platform's {@code QuotaHost} maps one to the other.
 */
public sealed interface QuotaInput {

  /** Rank of facts (what happened) among inputs of one instant: applied first. */
  int FACT = 0;
  /** Rank of requests (what someone asks for): applied after the facts of their instant. */
  int REQUEST = 1;

  /** A clock tick of the cluster ({@code cluster.clock}). */
  record Clock(Tick tick) implements QuotaInput {
    public Clock {
      Objects.requireNonNull(tick, "tick");
    }
  }

  /** An input that waits for a tick (every input but the clock). */
  sealed interface Buffered extends QuotaInput, Timed
      permits Definition, Submission, Lifecycle, Peak, Sample {}

  /**
   * A quota definition document (Q2, {@code quota.config}), already parsed and validated by the
   * host: the text as written (kept for the audit and for restores) and what it declares.
   * Equality ignores {@code declared}, which is a function of {@code text}.
   *
   * @param cluster the cluster it is for (its Kafka key)
   * @param version the definition's version (part of every verdict's policy version)
   * @param source where it came from ({@code file:...}, {@code quota.config by ops})
   * @param text the document as written
   * @param declared the hierarchy it declares (floors as written, before Q5)
   * @param fleetGpus the fleet it is sized for
   * @param at when it was published
   */
  record Definition(String cluster, String version, String source, String text,
      QuotaDefinition declared, double fleetGpus, Instant at) implements Buffered {

    public Definition {
      Objects.requireNonNull(version, "version");
      Objects.requireNonNull(text, "text");
      Objects.requireNonNull(declared, "declared");
      Objects.requireNonNull(at, "at");
    }

    @Override
    public int rank() {
      return FACT;
    }

    @Override
    public String key() {
      return cluster;
    }

    /** The same document (version and text): re-publishing it changes nothing. */
    public boolean sameDocument(Definition o) {
      return o != null && version.equals(o.version) && text.equals(o.text);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Definition d && Objects.equals(cluster, d.cluster)
          && version.equals(d.version) && Objects.equals(source, d.source) && text.equals(d.text)
          && Double.compare(fleetGpus, d.fleetGpus) == 0 && at.equals(d.at);
    }

    @Override
    public int hashCode() {
      return Objects.hash(cluster, version, source, text, fleetGpus, at);
    }
  }

  /** A job submission ({@code jobs.submitted}): a request for quota. */
  record Submission(JobRequest job) implements Buffered {
    public Submission {
      Objects.requireNonNull(job, "job");
    }

    @Override
    public Instant at() {
      return job.submittedAt();
    }

    @Override
    public int rank() {
      return REQUEST;
    }

    @Override
    public String key() {
      return job.jobId();
    }
  }

  /**
   * A lifecycle fact reported by the executor ({@code jobs.lifecycle}) that quota acts on.
   *
   * @param jobId the job
   * @param kind what happened
   * @param at when it happened
   * @param assignedGpus for STARTED/RESUMED, the GPUs the job holds after the fact (sum of its
   *     assignments' shares), or 0 when not reported: fewer than admitted = a shrink applied
   */
  record Lifecycle(String jobId, Kind kind, Instant at, double assignedGpus) implements Buffered {

    /** The lifecycle facts quota acts on. */
    public enum Kind { STARTED, RESUMED, PREEMPTED, COMPLETED, FAILED }

    public Lifecycle {
      Objects.requireNonNull(jobId, "jobId");
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(at, "at");
    }

    @Override
    public int rank() {
      return FACT;
    }

    @Override
    public String key() {
      return jobId;
    }
  }

  /**
   * An online service's historical peak from the forecaster ({@code forecast.slots}), Q5.
   *
   * @param serviceId the online service
   * @param historicalPeakGpus its historical peak demand, GPUs
   * @param at when the forecaster computed it
   */
  record Peak(String serviceId, double historicalPeakGpus, Instant at) implements Buffered {
    public Peak {
      Objects.requireNonNull(serviceId, "serviceId");
      Objects.requireNonNull(at, "at");
    }

    @Override
    public int rank() {
      return FACT;
    }

    @Override
    public String key() {
      return serviceId;
    }
  }

  /**
   * One GPU's utilisation, attributed to a job ({@code gpu.telemetry}), Q7.
   *
   * @param gpuId the GPU (its Kafka key)
   * @param jobId the job the GPU is attributed to
   * @param utilisation busy fraction in [0, 1]
   * @param at when it was sampled
   */
  record Sample(String gpuId, String jobId, double utilisation, Instant at) implements Buffered {
    public Sample {
      Objects.requireNonNull(gpuId, "gpuId");
      Objects.requireNonNull(jobId, "jobId");
      Objects.requireNonNull(at, "at");
    }

    @Override
    public int rank() {
      return FACT;
    }

    @Override
    public String key() {
      return gpuId;
    }
  }
}
