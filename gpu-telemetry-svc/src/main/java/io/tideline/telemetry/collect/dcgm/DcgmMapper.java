package io.tideline.telemetry.collect.dcgm;

import io.tideline.events.GpuSample;
import io.tideline.events.SampleSource;
import io.tideline.events.SampleState;
import io.tideline.telemetry.collect.Attributor;
import io.tideline.telemetry.collect.prom.PromSample;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Maps dcgm-exporter series to one {@link GpuSample} per GPU.
 *
 * <table>
 *   <caption>Mapping</caption>
 *   <tr><th>DCGM field / label</th><th>GpuSample</th></tr>
 *   <tr><td>{@code DCGM_FI_DEV_GPU_UTIL} (%)</td><td>utilizationPct</td></tr>
 *   <tr><td>{@code DCGM_FI_DEV_FB_USED} (MiB)</td><td>memoryUsedMiB</td></tr>
 *   <tr><td>{@code DCGM_FI_DEV_FB_FREE} (MiB)</td><td>memoryFreeMiB</td></tr>
 *   <tr><td>{@code DCGM_FI_DEV_POWER_USAGE} (W)</td><td>powerWatts</td></tr>
 *   <tr><td>{@code DCGM_FI_DEV_GPU_TEMP} (°C)</td><td>temperatureC</td></tr>
 *   <tr><td>{@code UUID} (+ {@code /mig-<GPU_I_ID>} for a MIG instance)</td><td>gpuId</td></tr>
 *   <tr><td>{@code gpu}</td><td>gpuIndex</td></tr>
 *   <tr><td>{@code Hostname}, unless the target names its node</td><td>nodeId</td></tr>
 *   <tr><td>{@code modelName}</td><td>model</td></tr>
 *   <tr><td>{@code namespace}, {@code pod}, {@code container}</td><td>the same, and jobId /
 *       serviceId via {@link Attributor}</td></tr>
 * </table>
 *
 * <p>Series of other metrics are ignored. A series without a usable {@code gpu} label cannot be
 * attributed to a GPU and is counted as unusable. A NaN or infinite figure is left null (unknown),
 * never turned into a number.
 */
public final class DcgmMapper {

  public static final String GPU_UTIL = "DCGM_FI_DEV_GPU_UTIL";
  public static final String FB_USED = "DCGM_FI_DEV_FB_USED";
  public static final String FB_FREE = "DCGM_FI_DEV_FB_FREE";
  public static final String POWER_USAGE = "DCGM_FI_DEV_POWER_USAGE";
  public static final String GPU_TEMP = "DCGM_FI_DEV_GPU_TEMP";
  static final Set<String> MAPPED = Set.of(GPU_UTIL, FB_USED, FB_FREE, POWER_USAGE, GPU_TEMP);

  /** The GPUs found, and how many mapped series could not be used. */
  public record Mapped(List<GpuSample> samples, int unusable) {}

  private DcgmMapper() {}

  /**
   * Maps one scrape.
   *
   * @param nodeOverride node id configured for the target, or null to use the Hostname label
   * @param fallbackNode node id when neither is available (the target's host)
   * @param now event time for series without a timestamp
   */
  public static Mapped map(List<PromSample> series, String cluster, String nodeOverride,
      String fallbackNode, Instant now, Attributor attributor) {
    Map<String, GpuSample.Builder> gpus = new LinkedHashMap<>();
    Map<String, Long> latest = new LinkedHashMap<>();
    int unusable = 0;
    for (PromSample p : series) {
      if (!MAPPED.contains(p.name())) {
        continue;
      }
      Integer index = parseIndex(p.label("gpu"));
      if (index == null) {
        unusable++;
        continue;
      }
      String node = nodeOverride != null ? nodeOverride
          : firstNonBlank(p.label("Hostname"), fallbackNode);
      String uuid = blankToNull(p.label("UUID"));
      String mig = blankToNull(p.label("GPU_I_ID"));
      String gpuId = (uuid != null ? uuid : node + "/" + index) + (mig != null ? "/mig-" + mig : "");
      // 1. one builder per GPU, identity and attribution from the first series that names it.
      GpuSample.Builder b = gpus.computeIfAbsent(gpuId, id -> newSample(id, cluster, node, index,
          p.labels(), attributor));
      // 2. a later series that carries pod labels the first lacked fills them in.
      if (b.getPod() == null && blankToNull(p.label("pod")) != null) {
        attribute(b, p.labels(), attributor);
      }
      // 3. the figure, if finite; the sample time is the newest series timestamp, else now.
      Double v = Double.isFinite(p.value()) ? p.value() : null;
      switch (p.name()) {
        case GPU_UTIL -> b.setUtilizationPct(v);
        case FB_USED -> b.setMemoryUsedMiB(v);
        case FB_FREE -> b.setMemoryFreeMiB(v);
        case POWER_USAGE -> b.setPowerWatts(v);
        case GPU_TEMP -> b.setTemperatureC(v);
        default -> { }
      }
      if (p.timestampMillis() != null) {
        latest.merge(gpuId, p.timestampMillis(), Math::max);
      }
    }
    List<GpuSample> out = new ArrayList<>(gpus.size());
    for (var e : gpus.entrySet()) {
      Long ts = latest.get(e.getKey());
      out.add(e.getValue().setSampledAt(ts != null ? Instant.ofEpochMilli(ts) : now).build());
    }
    return new Mapped(out, unusable);
  }

  private static GpuSample.Builder newSample(String gpuId, String cluster, String node, int index,
      Map<String, String> labels, Attributor attributor) {
    GpuSample.Builder b = GpuSample.newBuilder()
        .setGpuId(gpuId)
        .setCluster(cluster)
        .setNodeId(node)
        .setGpuIndex(index)
        .setModel(firstNonBlank(labels.get("modelName"), ""))
        .setState(SampleState.OK)
        .setSource(SampleSource.DCGM)
        .setSampledAt(Instant.EPOCH);
    attribute(b, labels, attributor);
    return b;
  }

  private static void attribute(GpuSample.Builder b, Map<String, String> labels,
      Attributor attributor) {
    b.setNamespace(blankToNull(labels.get("namespace")));
    b.setPod(blankToNull(labels.get("pod")));
    b.setContainer(blankToNull(labels.get("container")));
    Attributor.Attribution a = attributor.attribute(labels);
    b.setJobId(a.jobId());
    b.setServiceId(a.serviceId());
  }

  private static Integer parseIndex(String s) {
    if (s == null) {
      return null;
    }
    try {
      int i = Integer.parseInt(s.strip());
      return i >= 0 ? i : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }

  private static String firstNonBlank(String a, String b) {
    return a != null && !a.isBlank() ? a : b;
  }
}
