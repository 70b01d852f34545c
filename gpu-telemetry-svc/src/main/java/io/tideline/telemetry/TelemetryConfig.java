package io.tideline.telemetry;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * gpu-telemetry-svc's settings ({@code tideline.telemetry.*}). Every number is a default here,
 * never a literal in code. Requirement IDs: W2/W3 (usage of inference and training is measured),
 * T1 (the topology view), O1 (dashboards need usage per class).
 */
@ConfigMapping(prefix = "tideline.telemetry")
public interface TelemetryConfig {

  /** Which collector feeds gpu.telemetry (W2, W3). */
  enum SourceKind { DCGM, NVIDIA_SMI, SIMULATOR, NONE }

  /** Where the inventory comes from (T1). */
  enum InventoryKind { FILE, KUBERNETES, NONE }

  /**
   * How samples are published (ADR 0040): {@code BATCH} one {@code GpuSampleBatch} per node per
   * scrape on {@code gpu.telemetry.batches}; {@code SAMPLE} one {@code GpuSample} per GPU on
   * {@code gpu.telemetry} (what consumers older than ADR 0040 read); {@code BOTH} each, for a
   * rolling upgrade while old consumers still run. Consumers of this version read both topics and
   * treat a batch exactly as its samples, so {@code BOTH} makes them see every sample twice:
   * harmless (duplicates merge by (gpu, minute)), but only meant for the upgrade.
   */
  enum Format { BATCH, SAMPLE, BOTH }

  /** The collector to run. */
  @WithDefault("DCGM")
  SourceKind source();

  /** How samples are published: per node and scrape (default), per GPU, or both (ADR 0040). */
  @WithDefault("BATCH")
  Format format();

  /** How often samples are collected, in wall time (production) — the simulator pushes instead. */
  @WithDefault("10s")
  Duration collectInterval();

  /** DCGM exporter scraping. */
  Dcgm dcgm();

  /** nvidia-smi on a node without DCGM. */
  Smi smi();

  /** Pod → job / service attribution (W2, W3, O1). */
  Attribution attribution();

  /** Cluster inventory and topology (T1). */
  Inventory inventory();

  /** Logical clock ticks. */
  Clock clock();

  /** Producer tuning for the publish path (see the benchmark). */
  Producer producer();

  /** DCGM exporter scraping. */
  interface Dcgm {
    /**
     * Exporter endpoints, one per node, as {@code nodeId=http://host:9400/metrics}. The node id
     * names the node whose GPUs go STALE when that endpoint fails; without {@code nodeId=} the
     * exporter's {@code Hostname} label (or the URL's host) is used.
     */
    Optional<List<String>> targets();

    /** HTTP timeout of one scrape; a slower exporter counts as failed. */
    @WithDefault("5s")
    Duration timeout();
  }

  /** nvidia-smi. */
  interface Smi {
    /** The command, run through {@link ProcessBuilder} (no shell). */
    @WithDefault("nvidia-smi --query-gpu=index,uuid,name,utilization.gpu,memory.used,memory.free,power.draw,temperature.gpu --format=csv,noheader,nounits")
    String command();

    /** Node id to report; defaults to the environment's NODE_NAME, then HOSTNAME. */
    Optional<String> nodeId();

    /** Longest the command may run before the round counts as failed. */
    @WithDefault("10s")
    Duration timeout();
  }

  /**
   * The naming convention that attributes a GPU to a Tideline job or inference service. First a
   * pod label exported by dcgm-exporter's {@code --kubernetes-enable-pod-labels} wins
   * ({@link #jobIdLabel()}, {@link #serviceIdLabel()}); else the pod name is matched in the
   * namespaces listed for services or jobs, and the pattern's {@code id} group is the id.
   */
  interface Attribution {
    /** Metric label carrying the Tideline job id (pod label {@code tideline.io/job-id}). */
    @WithDefault("tideline_io_job_id")
    String jobIdLabel();

    /** Metric label carrying the Tideline service id (pod label {@code tideline.io/service-id}). */
    @WithDefault("tideline_io_service_id")
    String serviceIdLabel();

    /** Namespaces whose pods are online-inference services (W2). */
    @WithDefault("inference")
    List<String> serviceNamespaces();

    /** Deployment pods are {@code <deployment>-<replicaset hash>-<5 chars>}: the deployment is the service. */
    @WithDefault("^(?<id>.+)-[a-z0-9]{6,10}-[a-z0-9]{5}$")
    String servicePodPattern();

    /** Namespaces whose pods are training or batch jobs (W3). */
    @WithDefault("training,batch")
    List<String> jobNamespaces();

    /** Job pods are {@code <jobId>[-<role>]-<index>}: the job id is the prefix. */
    @WithDefault("^(?<id>.+?)(-(worker|master|launcher|ps|chief|head))?-[0-9]+$")
    String jobPodPattern();
  }

  /** Inventory and topology (T1). */
  interface Inventory {
    /** Where nodes come from: the files below, or the Kubernetes API. */
    @WithDefault("FILE")
    InventoryKind source();

    /** How often the inventory is re-read and diffed. */
    @WithDefault("60s")
    Duration interval();

    /** Topology CSV ({@code ip,DSW,PSW,ASW}); a file path, or {@code classpath:} resource. */
    Optional<String> topologyFile();

    /** Node → GPU CSV ({@code host,gpuModel,gpuCount,gpuMemoryMiB,nvlinkIslands}). */
    Optional<String> gpuFile();

    /** Nodes to report DRAINED (maintenance), whatever the source says. */
    Optional<List<String>> drainList();

    /** GPU model of hosts absent from the GPU file. */
    @WithDefault("NVIDIA H100 80GB HBM3")
    String defaultGpuModel();

    /** GPUs per host absent from the GPU file. */
    @WithDefault("8")
    int defaultGpuCount();

    /** Memory per GPU, MiB, of hosts absent from the GPU file. */
    @WithDefault("81559")
    int defaultGpuMemoryMiB();

    /** NVLink islands per host absent from the GPU file (GPUs split evenly). */
    @WithDefault("1")
    int defaultNvlinkIslands();

    /** The Kubernetes API source. */
    Kubernetes kubernetes();
  }

  /** Kubernetes node listing. */
  interface Kubernetes {
    /** Label selector for GPU nodes (empty: all nodes). */
    @WithDefault("nvidia.com/gpu.present=true")
    String labelSelector();

    /**
     * Labels naming the access (leaf) switch, first present wins: NVIDIA Topograph's, then EKS's
     * bottom network layer.
     */
    @WithDefault("network.topology.nvidia.com/leaf,topology.k8s.aws/network-node-layer-3")
    List<String> accessSwitchLabels();

    /** Labels naming the aggregation (spine) switch, first present wins. */
    @WithDefault("network.topology.nvidia.com/spine,topology.k8s.aws/network-node-layer-2,topology.kubernetes.io/zone")
    List<String> aggregationSwitchLabels();

    /** Labels naming the core switch, first present wins. */
    @WithDefault("network.topology.nvidia.com/core,topology.k8s.aws/network-node-layer-1,topology.kubernetes.io/region")
    List<String> coreSwitchLabels();

    /** Label giving the node's NVLink island count. */
    @WithDefault("tideline.io/nvlink-islands")
    String nvlinkIslandsLabel();
  }

  /** Clock ticks. */
  interface Clock {
    /** Publish ticks at all (off when the simulator owns cluster.clock). */
    @WithDefault("true")
    boolean enabled();

    /**
     * Cluster-time interval between ticks: the scheduling cycle of every kernel (ADR 0008) and the
     * cost of each hop between them (a verdict decided at one tick is placed at the next). 1 s, as
     * ADR 0008 decided: with 10 s a 3,000-job burst was decided at 157/s with p50 19 s from
     * submit to placement, with 1 s at 981/s with p50 2.9 s, for +3.5% of one core of idle work
     * across the six services (ADR 0021).
     */
    @WithDefault("1s")
    Duration interval();

    /**
     * How often the wall-clock publisher looks whether a tick is due. A tick's time is a multiple
     * of {@link #interval()}; it is published at most this long after that time (checking every
     * {@code interval} instead published each tick a random part of an interval late, 0–10 s at
     * the former 10 s, and every decision waited for it: issue #16, finding 10). Checks that find
     * no tick due publish nothing, so there is still one tick per interval.
     */
    @WithDefault("250ms")
    Duration publishCheck();
  }

  /**
   * Producer settings of the publish path, chosen with {@code PublishBenchmark} (README): acks=all
   * with idempotence, 20 ms linger, 512 KiB batches, lz4.
   */
  interface Producer {
    @WithDefault("all")
    String acks();

    @WithDefault("20")
    int lingerMs();

    @WithDefault("524288")
    int batchSize();

    @WithDefault("lz4")
    String compressionType();
  }
}
