package io.tideline.executor;

/**
 * Every label and annotation the executor reads or writes on Kubernetes objects, in one place
 * (ADR 0010 for the pod group, ADR 0011 for the device annotations). Keys under {@code tideline.io/}
 * are ours; the pod-group keys are Kueue's plain-pod-group convention, so a pod group written for
 * Kueue is a Tideline gang as it stands.
 */
public final class Keys {

  private Keys() {}

  // ---- the gang (Kueue's plain pod groups) ------------------------------------------------
  /** Label naming the pod group: every pod of one gang carries the same value. */
  public static final String POD_GROUP = "kueue.x-k8s.io/pod-group-name";
  /** Annotation with the number of pods in the group; the job is submitted when all are there. */
  public static final String POD_GROUP_TOTAL = "kueue.x-k8s.io/pod-group-total-count";

  // ---- what the user declares (read at intake) ---------------------------------------------
  public static final String PREFIX = "tideline.io/";
  /** Workload class: online-inference, batch-inference, training, exploratory-training (W1). */
  public static final String WORKLOAD_CLASS = PREFIX + "workload-class";
  /** Whether the job may be a preemption victim (W4): true / false. */
  public static final String PREEMPTIBLE = PREFIX + "preemptible";
  /** Requested right to preempt (W4; quota grants it only to entitled tenants). */
  public static final String PREEMPTION_RIGHT = PREFIX + "preemption-right";
  /** Release / evaluation job (W1). */
  public static final String CRITICAL = PREFIX + "critical";
  /** Key training job whose minimum forms the offline guarantee (Q1). */
  public static final String KEY_TRAINING = PREFIX + "key-training";
  /** Online service an inference instance belongs to (required for online inference). */
  public static final String SERVICE = PREFIX + "service";
  /** Owner of the job, who receives notices; default: the namespace's owner label. */
  public static final String USER = PREFIX + "user";
  public static final String EMAIL = PREFIX + "notify-email";
  public static final String SLACK = PREFIX + "notify-slack";
  public static final String LOCALE = PREFIX + "notify-locale";
  /** Fraction of one GPU for a fractional instance, in (0, 1) (KAI's gpu-fraction style). */
  public static final String GPU_FRACTION = PREFIX + "gpu-fraction";
  /** Comma-separated GPU models the job may run on (T5); node affinity on the product label also counts. */
  public static final String GPU_MODELS = PREFIX + "gpu-models";
  /** Checkpoint profile (P4): state size in GB. */
  public static final String CHECKPOINT_STATE_GB = PREFIX + "checkpoint-state-gb";
  /** Checkpoint profile (P4): write bandwidth per writer in GB/s. */
  public static final String CHECKPOINT_BANDWIDTH = PREFIX + "checkpoint-bandwidth-gbps";
  /** Checkpoint profile (P4): parallel writers. */
  public static final String CHECKPOINT_SHARDS = PREFIX + "checkpoint-shards";
  /** Checkpoint profile (P4): seconds between checkpoints. */
  public static final String CHECKPOINT_INTERVAL = PREFIX + "checkpoint-interval-seconds";
  /** Submitter's estimate of the run time, seconds. */
  public static final String EXPECTED_DURATION = PREFIX + "expected-duration-seconds";
  /** Latest useful completion, RFC 3339 (B2). */
  public static final String DEADLINE = PREFIX + "deadline";
  /** Data cache warmed at start, GB (P4). */
  public static final String DATA_CACHE_GB = PREFIX + "data-cache-gb";

  // ---- namespace labels ------------------------------------------------------------------
  /** Namespace label: the tenant (organisation / business line) that owns the quota. */
  public static final String NS_TENANT = PREFIX + "tenant";
  /** Namespace label: the team inside the tenant (Q2). */
  public static final String NS_TEAM = PREFIX + "team";
  /** Namespace label: default owner of jobs in the namespace. */
  public static final String NS_OWNER = PREFIX + "owner";

  /** Node label with the GPU product (GPU feature discovery), used for model constraints. */
  public static final String GPU_PRODUCT = "nvidia.com/gpu.product";

  // ---- what the executor writes ------------------------------------------------------------
  /** The Tideline job id of the pod (written when the job is submitted). */
  public static final String JOB = PREFIX + "job";
  /** GPU indices on the node chosen by placement, comma-separated, as nvidia-smi numbers them. */
  public static final String GPUS = PREFIX + "gpus";
  /** Share of the GPU for a fractional placement (HAMi/KAI style), written with {@link #GPUS}. */
  public static final String GPU_SHARE = PREFIX + "gpu-share";
  /** Placement decision that bound the pod. */
  public static final String DECISION = PREFIX + "decision";
  /** Lifecycle already reported for this pod's incarnation of the job (STARTED / RESUMED). */
  public static final String REPORTED = PREFIX + "reported";
  /** Deadline of the checkpoint asked before an eviction, RFC 3339. */
  public static final String CHECKPOINT_REQUESTED = PREFIX + "checkpoint-requested";
  /** Why the pod could not become a job (written with its Event and dead letter, once). */
  public static final String REFUSED = PREFIX + "refused";
  /** The eviction order being carried out. */
  public static final String EVICTION = PREFIX + "eviction";
  /**
   * SHRINK (Q7): the GPUs the job restarts with, written with the checkpoint request so that an
   * elastic launcher (e.g. {@code torchrun --nnodes=min:max}) knows how many workers come back.
   */
  public static final String SHRINK_TO = PREFIX + "shrink-to-gpus";
  /**
   * A pod a placement left unbound because it has fewer workers than the gang has pods (a shrunk
   * job, Q7): the decision's id. The pod waits; the job runs on the bound ones.
   */
  public static final String STANDBY = PREFIX + "standby";
  /**
   * A pod of a job reclaimed for idleness (Q7): the eviction's id. Placement does not queue the job
   * again (its owner submits anew, under a new pod-group name); written with its Event, once.
   */
  public static final String RECLAIMED = PREFIX + "reclaimed";
}
