package io.tideline.executor.intake;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.tideline.events.CheckpointProfile;
import io.tideline.events.HardwarePreference;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NotificationContacts;
import io.tideline.events.ResourceQuantities;
import io.tideline.events.ResourceRequest;
import io.tideline.events.WorkloadClass;
import io.tideline.executor.ExecutorSettings;
import io.tideline.executor.Keys;
import io.tideline.platform.kubernetes.KubernetesResources;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Turns the pods of one gang into the job they ask for (issue #17, point 1): no I/O, no clock, so
 * the same pods always give the same {@link JobSubmitted}.
 *
 * <ul>
 *   <li>Group: pods carrying the label {@value Keys#POD_GROUP} form one job with id
 *       {@code <namespace>/<group>}; the annotation {@value Keys#POD_GROUP_TOTAL} says how many
 *       pods the gang has (ADR 0010). A pod without the label is a job of its own,
 *       {@code <namespace>/<pod>}.
 *   <li>GPUs: {@code resources.limits["nvidia.com/gpu"]} of the pod's containers, every pod of a
 *       gang alike (each pod is one worker on one node); or, for a fractional instance, no GPU
 *       limit and {@value Keys#GPU_FRACTION} in (0, 1).
 *   <li>Class, preemptibility, right, checkpoint profile, contacts: {@code tideline.io/}
 *       annotations ({@link Keys}), read from the gang's first pod by name; tenant and team: the
 *       namespace's labels.
 *   <li>GPU models: {@value Keys#GPU_MODELS}, else a required node affinity or node selector on
 *       {@value Keys#GPU_PRODUCT}.
 *   <li>Submitted at: the creation of the gang's last pod (when it became whole).
 * </ul>
 */
public final class PodGangs {

  /** What a set of pods amounts to. */
  public sealed interface Gang permits Incomplete, Invalid, Ready {}

  /** Not all pods of the gang are there yet. */
  public record Incomplete(String jobId, int present, int expected) implements Gang {}

  /** The pods cannot become a job: why, in words, naming the pod and the annotation. */
  public record Invalid(String jobId, Pod culprit, String reason) implements Gang {}

  /** The whole gang, as the job it asks for (still to pass the platform's {@code EventValidator}). */
  public record Ready(String jobId, List<Pod> pods, JobSubmitted job) implements Gang {}

  private final ExecutorSettings settings;

  public PodGangs(ExecutorSettings settings) {
    this.settings = settings;
  }

  /** The job id a pod belongs to. */
  public static String jobIdOf(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    String group = label(pod, Keys.POD_GROUP);
    return ns + "/" + (group == null || group.isBlank() ? pod.getMetadata().getName() : group);
  }

  /** Whether the pod is one of a named pod group. */
  public static boolean grouped(Pod pod) {
    String group = label(pod, Keys.POD_GROUP);
    return group != null && !group.isBlank();
  }

  /**
   * The job of {@code pods} (all of one job id, none terminating), with the namespace's labels.
   */
  public Gang gang(String jobId, List<Pod> pods, Map<String, String> namespaceLabels) {
    List<Pod> sorted = new ArrayList<>(pods);
    sorted.sort(Comparator.comparing(p -> p.getMetadata().getName()));
    Pod first = sorted.get(0);
    int expected = 1;
    if (grouped(first)) {
      String total = annotation(first, Keys.POD_GROUP_TOTAL);
      if (total == null) {
        return new Invalid(jobId, first, "pod group " + label(first, Keys.POD_GROUP)
            + " has no " + Keys.POD_GROUP_TOTAL + " annotation (the number of pods in the gang)");
      }
      try {
        expected = Integer.parseInt(total.strip());
      } catch (NumberFormatException e) {
        return new Invalid(jobId, first, Keys.POD_GROUP_TOTAL + " must be a whole number, got '"
            + total + "'");
      }
      if (expected < 1) {
        return new Invalid(jobId, first, Keys.POD_GROUP_TOTAL + " must be at least 1, got "
            + expected);
      }
      for (Pod p : sorted) {
        if (!total.equals(annotation(p, Keys.POD_GROUP_TOTAL))) {
          return new Invalid(jobId, p, "pods of group " + label(first, Keys.POD_GROUP)
              + " disagree on " + Keys.POD_GROUP_TOTAL + ": '" + total + "' and '"
              + annotation(p, Keys.POD_GROUP_TOTAL) + "'");
        }
      }
      if (sorted.size() > expected) {
        return new Invalid(jobId, sorted.get(sorted.size() - 1), "pod group "
            + label(first, Keys.POD_GROUP) + " has " + sorted.size() + " pods but "
            + Keys.POD_GROUP_TOTAL + " says " + expected);
      }
    }
    if (sorted.size() < expected) {
      return new Incomplete(jobId, sorted.size(), expected);
    }
    try {
      return new Ready(jobId, sorted, job(jobId, sorted, namespaceLabels));
    } catch (BadAnnotation e) {
      return new Invalid(jobId, e.pod, e.getMessage());
    }
  }

  private JobSubmitted job(String jobId, List<Pod> pods, Map<String, String> nsLabels) {
    Pod first = pods.get(0);
    String ns = first.getMetadata().getNamespace();
    // GPUs: each pod is one worker; a gang's workers are alike
    int perPod = gpus(first);
    for (Pod p : pods) {
      int g = gpus(p);
      if (g != perPod) {
        throw new BadAnnotation(p, "pods of a gang must ask for the same GPUs: "
            + first.getMetadata().getName() + " asks " + perPod + ", " + p.getMetadata().getName()
            + " asks " + g);
      }
    }
    ResourceQuantities each = perWorker(pods);
    String fraction = annotation(first, Keys.GPU_FRACTION);
    double share = 1.0;
    int gpuCount = perPod * pods.size();
    if (fraction != null) {
      share = number(first, Keys.GPU_FRACTION, fraction);
      if (perPod > 0) {
        throw new BadAnnotation(first, Keys.GPU_FRACTION + " asks a share of one GPU, but the pod "
            + "also asks " + perPod + " whole " + settings.gpuResource() + "; ask one or the other");
      }
      if (pods.size() != 1) {
        throw new BadAnnotation(first, Keys.GPU_FRACTION + " is for a single-pod instance, not a "
            + "gang of " + pods.size());
      }
      gpuCount = 1;
    } else if (perPod == 0 && each.getCpuMillis() == 0 && each.getMemoryBytes() == 0
        && each.getExtended().isEmpty()) {
      // a pod without GPUs is placed on a GPU node for its CPU, memory or extended resources
      // (ADR 0030); one that asks nothing at all has nothing to place
      throw new BadAnnotation(first, "the pod asks for no GPU and no CPU, memory or extended "
          + "resource: set resources.limits[\"" + settings.gpuResource() + "\"], the "
          + Keys.GPU_FRACTION + " annotation, or the requests of what it needs");
    }
    WorkloadClass wc = workloadClass(first);
    boolean preemptible = bool(first, Keys.PREEMPTIBLE, wc != WorkloadClass.ONLINE_INFERENCE);
    CheckpointProfile cp = checkpoint(first);
    String deadline = annotation(first, Keys.DEADLINE);
    Instant deadlineAt = null;
    if (deadline != null) {
      try {
        deadlineAt = Instant.parse(deadline.strip());
      } catch (DateTimeParseException e) {
        throw new BadAnnotation(first, Keys.DEADLINE + " must be an RFC 3339 instant such as "
            + "2026-11-02T18:00:00Z, got '" + deadline + "'");
      }
    }
    Instant submittedAt = pods.stream().map(PodGangs::created).max(Comparator.naturalOrder())
        .orElseThrow();
    String tenant = nsLabels.getOrDefault(Keys.NS_TENANT, ns);
    String team = nsLabels.getOrDefault(Keys.NS_TEAM, settings.defaultTeam());
    String duration = annotation(first, Keys.EXPECTED_DURATION);
    String user = annotation(first, Keys.USER);
    if (user == null) {
      user = nsLabels.getOrDefault(Keys.NS_OWNER, ns);
    }
    return JobSubmitted.newBuilder()
        .setJobId(jobId)
        .setSubmittedAt(submittedAt)
        .setTenant(tenant)
        .setTeam(team)
        .setUser(user)
        .setWorkloadClass(wc)
        .setCritical(bool(first, Keys.CRITICAL, false))
        .setPreemptible(preemptible)
        .setPreemptionRight(bool(first, Keys.PREEMPTION_RIGHT, false))
        .setServiceId(annotation(first, Keys.SERVICE))
        .setKeyTraining(bool(first, Keys.KEY_TRAINING, false))
        .setResources(ResourceRequest.newBuilder()
            .setGpuCount(gpuCount)
            .setGpuShare(share)
            .setGangSize(pods.size())
            .setNodes(0) // each pod is a worker on one node; placement chooses the nodes
            .setAllowedGpuModels(models(first))
            // set, not left to Avro's default: the builder resolves an enum default through the
            // loader of Avro's own classes, which under a Quarkus test is not the one that loaded
            // the events (a ClassCastException of HardwarePreference to itself); PlacementHost
            // and PreemptionHost set it too
            .setHardwarePreference(HardwarePreference.ANY)
            .setPerWorker(each)
            .build())
        .setDeadline(deadlineAt)
        .setExpectedDurationSeconds(duration == null ? 0
            : (long) number(first, Keys.EXPECTED_DURATION, duration))
        .setCheckpoint(cp)
        .setDataCacheGb(annotation(first, Keys.DATA_CACHE_GB) == null ? 0.0
            : number(first, Keys.DATA_CACHE_GB, annotation(first, Keys.DATA_CACHE_GB)))
        .setContacts(NotificationContacts.newBuilder()
            .setEmail(annotation(first, Keys.EMAIL))
            .setSlackUserId(annotation(first, Keys.SLACK))
            .setLocale(annotation(first, Keys.LOCALE) == null ? "en"
                : annotation(first, Keys.LOCALE))
            .build())
        .build();
  }

  /**
   * What one worker asks besides GPUs (ADR 0030): per pod, Kubernetes' effective request (the
   * sum over its containers, or the largest init container if that is more; a container's limit
   * where it sets no request), and over the gang the largest per resource, so no worker is
   * charged less than it asks. CPU rounds up to whole millicores. Extended resources are the
   * domain-qualified names other than the GPU resource and Kubernetes' own
   * ({@code kubernetes.io/…}, {@code hugepages-…} and {@code ephemeral-storage} are not placed).
   */
  ResourceQuantities perWorker(List<Pod> pods) {
    long cpu = 0;
    long memory = 0;
    TreeMap<String, Long> extended = new TreeMap<>();
    for (Pod p : pods) {
      TreeMap<String, Long> pod = new TreeMap<>();
      for (Container c : p.getSpec().getContainers()) {
        requests(p, c).forEach((k, v) -> pod.merge(k, v, Math::addExact));
      }
      if (p.getSpec().getInitContainers() != null) {
        for (Container c : p.getSpec().getInitContainers()) {
          requests(p, c).forEach((k, v) -> pod.merge(k, v, Math::max));
        }
      }
      for (Map.Entry<String, Long> e : pod.entrySet()) {
        switch (e.getKey()) {
          case "cpu" -> cpu = Math.max(cpu, e.getValue());
          case "memory" -> memory = Math.max(memory, e.getValue());
          default -> extended.merge(e.getKey(), e.getValue(), Math::max);
        }
      }
    }
    return new ResourceQuantities(cpu, memory, new TreeMap<>(extended));
  }

  /** One container's requests that placement accounts: cpu (millicores), memory, extended. */
  private Map<String, Long> requests(Pod pod, Container c) {
    TreeMap<String, Long> out = new TreeMap<>();
    if (c.getResources() == null) {
      return out;
    }
    TreeMap<String, Quantity> asked = new TreeMap<>();
    if (c.getResources().getLimits() != null) {
      asked.putAll(c.getResources().getLimits());
    }
    if (c.getResources().getRequests() != null) {
      asked.putAll(c.getResources().getRequests());
    }
    for (Map.Entry<String, Quantity> e : asked.entrySet()) {
      String name = e.getKey();
      if (!KubernetesResources.placed(name, settings.gpuResource())) {
        continue;
      }
      BigDecimal v;
      try {
        v = e.getValue().getNumericalAmount();
      } catch (IllegalArgumentException | ArithmeticException x) {
        throw new BadAnnotation(pod, name + " of container " + c.getName()
            + " is not a quantity: " + e.getValue());
      }
      try {
        out.put(name, KubernetesResources.amount(name, v, RoundingMode.CEILING));
      } catch (IllegalArgumentException x) {
        throw new BadAnnotation(pod, name + " of container " + c.getName()
            + " must be in [0, 2^62], got " + e.getValue());
      }
    }
    return out;
  }

  /** Whole GPUs the pod asks for: the sum of its containers' limits (requests if no limit). */
  int gpus(Pod pod) {
    BigDecimal sum = BigDecimal.ZERO;
    for (Container c : pod.getSpec().getContainers()) {
      if (c.getResources() == null) {
        continue;
      }
      Quantity q = c.getResources().getLimits() == null ? null
          : c.getResources().getLimits().get(settings.gpuResource());
      if (q == null && c.getResources().getRequests() != null) {
        q = c.getResources().getRequests().get(settings.gpuResource());
      }
      if (q != null) {
        BigDecimal v = q.getNumericalAmount();
        if (v.signum() < 0 || v.stripTrailingZeros().scale() > 0) {
          throw new BadAnnotation(pod, settings.gpuResource() + " of container " + c.getName()
              + " must be a whole number, got " + q);
        }
        sum = sum.add(v);
      }
    }
    return sum.intValueExact();
  }

  private WorkloadClass workloadClass(Pod pod) {
    String v = annotation(pod, Keys.WORKLOAD_CLASS);
    if (v == null) {
      return settings.defaultWorkloadClass();
    }
    String name = v.strip().toUpperCase(Locale.ROOT).replace('-', '_');
    for (WorkloadClass c : WorkloadClass.values()) {
      if (c.name().equals(name)) {
        return c;
      }
    }
    throw new BadAnnotation(pod, Keys.WORKLOAD_CLASS + " must be one of online-inference, "
        + "batch-inference, training, exploratory-training; got '" + v + "'");
  }

  private CheckpointProfile checkpoint(Pod pod) {
    String state = annotation(pod, Keys.CHECKPOINT_STATE_GB);
    if (state == null) {
      return null;
    }
    String bw = annotation(pod, Keys.CHECKPOINT_BANDWIDTH);
    String interval = annotation(pod, Keys.CHECKPOINT_INTERVAL);
    if (bw == null || interval == null) {
      throw new BadAnnotation(pod, "a checkpoint profile needs " + Keys.CHECKPOINT_STATE_GB + ", "
          + Keys.CHECKPOINT_BANDWIDTH + " and " + Keys.CHECKPOINT_INTERVAL + " (and optionally "
          + Keys.CHECKPOINT_SHARDS + ")");
    }
    String shards = annotation(pod, Keys.CHECKPOINT_SHARDS);
    double bandwidth = number(pod, Keys.CHECKPOINT_BANDWIDTH, bw);
    if (!(bandwidth > 0)) {
      throw new BadAnnotation(pod, Keys.CHECKPOINT_BANDWIDTH + " must be positive, got " + bw);
    }
    return CheckpointProfile.newBuilder()
        .setStateSizeGb(number(pod, Keys.CHECKPOINT_STATE_GB, state))
        .setStorageBandwidthGbPerSec(bandwidth)
        .setWriteShards(shards == null ? 1 : (int) number(pod, Keys.CHECKPOINT_SHARDS, shards))
        .setIntervalSeconds((long) number(pod, Keys.CHECKPOINT_INTERVAL, interval))
        .build();
  }

  private static List<String> models(Pod pod) {
    TreeSet<String> models = new TreeSet<>();
    String v = annotation(pod, Keys.GPU_MODELS);
    if (v != null) {
      for (String m : v.split(",")) {
        if (!m.isBlank()) {
          models.add(m.strip());
        }
      }
      return new ArrayList<>(models);
    }
    var spec = pod.getSpec();
    if (spec.getNodeSelector() != null && spec.getNodeSelector().get(Keys.GPU_PRODUCT) != null) {
      models.add(spec.getNodeSelector().get(Keys.GPU_PRODUCT));
    }
    var affinity = spec.getAffinity();
    if (affinity != null && affinity.getNodeAffinity() != null
        && affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() != null) {
      for (NodeSelectorTerm t : affinity.getNodeAffinity()
          .getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms()) {
        for (NodeSelectorRequirement r : t.getMatchExpressions()) {
          if (Keys.GPU_PRODUCT.equals(r.getKey()) && "In".equals(r.getOperator())) {
            models.addAll(r.getValues());
          }
        }
      }
    }
    return new ArrayList<>(models);
  }

  private static boolean bool(Pod pod, String key, boolean fallback) {
    String v = annotation(pod, key);
    if (v == null) {
      return fallback;
    }
    return switch (v.strip().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new BadAnnotation(pod, key + " must be true or false, got '" + v + "'");
    };
  }

  private static double number(Pod pod, String key, String v) {
    try {
      double d = Double.parseDouble(v.strip());
      if (!Double.isFinite(d) || d < 0) {
        throw new BadAnnotation(pod, key + " must be a finite number not below 0, got '" + v + "'");
      }
      return d;
    } catch (NumberFormatException e) {
      throw new BadAnnotation(pod, key + " must be a number, got '" + v + "'");
    }
  }

  static Instant created(Pod pod) {
    String ts = pod.getMetadata().getCreationTimestamp();
    return ts == null ? Instant.EPOCH : Instant.parse(ts);
  }

  static String annotation(Pod pod, String key) {
    Map<String, String> a = pod.getMetadata().getAnnotations();
    return a == null ? null : a.get(key);
  }

  static String label(Pod pod, String key) {
    Map<String, String> l = pod.getMetadata().getLabels();
    return l == null ? null : l.get(key);
  }

  /** A declaration the pod got wrong. */
  static final class BadAnnotation extends RuntimeException {
    final transient Pod pod;

    BadAnnotation(Pod pod, String message) {
      super("pod " + pod.getMetadata().getName() + ": " + message);
      this.pod = pod;
    }
  }
}
