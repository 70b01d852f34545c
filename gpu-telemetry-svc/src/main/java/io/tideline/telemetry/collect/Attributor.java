package io.tideline.telemetry.collect;

import io.tideline.telemetry.TelemetryConfig;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Attributes a GPU sample to a Tideline job or online-inference service from the Kubernetes labels
 * dcgm-exporter adds ({@code namespace}, {@code pod}, {@code container}), by a documented
 * convention (see {@link TelemetryConfig.Attribution}):
 *
 * <ol>
 *   <li>an explicit pod label exported as a metric label wins ({@code tideline_io_job_id},
 *       {@code tideline_io_service_id});
 *   <li>else, in a service namespace, a Deployment pod {@code <name>-<rs hash>-<suffix>} belongs to
 *       service {@code <name>};
 *   <li>else, in a job namespace, a pod {@code <jobId>[-<role>]-<index>} belongs to job {@code <jobId>};
 *   <li>else the sample keeps namespace/pod/container and no id.
 * </ol>
 */
public final class Attributor {

  /** The result: at most one of the two is set. */
  public record Attribution(String jobId, String serviceId) {
    static final Attribution NONE = new Attribution(null, null);
  }

  private final String jobIdLabel;
  private final String serviceIdLabel;
  private final Set<String> serviceNamespaces;
  private final Pattern servicePod;
  private final Set<String> jobNamespaces;
  private final Pattern jobPod;

  public Attributor(String jobIdLabel, String serviceIdLabel, List<String> serviceNamespaces,
      String servicePodPattern, List<String> jobNamespaces, String jobPodPattern) {
    this.jobIdLabel = jobIdLabel;
    this.serviceIdLabel = serviceIdLabel;
    this.serviceNamespaces = Set.copyOf(serviceNamespaces);
    this.servicePod = Pattern.compile(servicePodPattern);
    this.jobNamespaces = Set.copyOf(jobNamespaces);
    this.jobPod = Pattern.compile(jobPodPattern);
  }

  public static Attributor from(TelemetryConfig.Attribution c) {
    return new Attributor(c.jobIdLabel(), c.serviceIdLabel(), c.serviceNamespaces(),
        c.servicePodPattern(), c.jobNamespaces(), c.jobPodPattern());
  }

  /** Attribution of a sample carrying these labels. */
  public Attribution attribute(Map<String, String> labels) {
    String job = blankToNull(labels.get(jobIdLabel));
    String service = blankToNull(labels.get(serviceIdLabel));
    if (job != null || service != null) {
      return new Attribution(job, service);
    }
    String namespace = blankToNull(labels.get("namespace"));
    String pod = blankToNull(labels.get("pod"));
    if (namespace == null || pod == null) {
      return Attribution.NONE;
    }
    if (serviceNamespaces.contains(namespace)) {
      Matcher m = servicePod.matcher(pod);
      return new Attribution(null, m.matches() ? m.group("id") : pod);
    }
    if (jobNamespaces.contains(namespace)) {
      Matcher m = jobPod.matcher(pod);
      return new Attribution(m.matches() ? m.group("id") : pod, null);
    }
    return Attribution.NONE;
  }

  static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
