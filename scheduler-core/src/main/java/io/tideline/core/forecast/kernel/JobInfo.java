package io.tideline.core.forecast.kernel;

import java.time.Instant;
import java.util.Objects;

/**
 * A job as the forecaster knows it: its workload class and service ({@code jobs.submitted}) and
 * its end ({@code jobs.lifecycle}).
 *
 * @param workloadClass W1 class name, {@link #UNKNOWN_CLASS} when never submitted here
 * @param serviceId the online service it serves, "" none
 * @param endedAt when it ended, or {@code null} while it runs (or is not known to have ended)
 */
public record JobInfo(String workloadClass, String serviceId, Instant endedAt) {

  /** Workload class of a job the forecaster has not seen submitted. */
  public static final String UNKNOWN_CLASS = "UNKNOWN";
  /** A job never submitted here. */
  public static final JobInfo UNKNOWN = new JobInfo(UNKNOWN_CLASS, "", null);

  public JobInfo {
    Objects.requireNonNull(workloadClass, "workloadClass");
    Objects.requireNonNull(serviceId, "serviceId");
  }

  /** Whether the job had ended by {@code at}. */
  boolean endedBy(Instant at) {
    return endedAt != null && !endedAt.isAfter(at);
  }
}
