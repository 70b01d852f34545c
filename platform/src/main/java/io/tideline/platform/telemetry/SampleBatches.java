package io.tideline.platform.telemetry;

import io.tideline.events.GpuReading;
import io.tideline.events.GpuSample;
import io.tideline.events.GpuSampleBatch;
import io.tideline.events.SampleSource;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The equivalence rule of ADR 0040 in one place: a {@link GpuSampleBatch} is exactly its GPUs'
 * {@link GpuSample} records, in the order of {@code gpus}, sent back to back. Every consumer that
 * reads batches through the whole record (the platform's kernel hosts, so the twin, quota-svc)
 * turns a batch into these samples and reads them as it reads {@code gpu.telemetry}; producers
 * build batches from a scrape's samples with {@link #ofScrape}.
 */
public final class SampleBatches {

  private SampleBatches() {}

  /** The samples a batch stands for, in its order. */
  public static List<GpuSample> samples(GpuSampleBatch b) {
    List<GpuSample> out = new ArrayList<>(b.getGpus().size());
    for (GpuReading g : b.getGpus()) {
      out.add(sample(b, g));
    }
    return out;
  }

  /** One GPU of a batch as the sample it stands for. */
  public static GpuSample sample(GpuSampleBatch b, GpuReading g) {
    return GpuSample.newBuilder().setGpuId(g.getGpuId()).setCluster(b.getCluster())
        .setNodeId(b.getNodeId()).setGpuIndex(g.getGpuIndex()).setModel(g.getModel())
        .setSampledAt(b.getSampledAt()).setState(g.getState())
        .setUtilizationPct(g.getUtilizationPct()).setMemoryUsedMiB(g.getMemoryUsedMiB())
        .setMemoryFreeMiB(g.getMemoryFreeMiB()).setPowerWatts(g.getPowerWatts())
        .setTemperatureC(g.getTemperatureC()).setNamespace(g.getNamespace())
        .setPod(g.getPod()).setContainer(g.getContainer()).setJobId(g.getJobId())
        .setServiceId(g.getServiceId()).setSource(b.getSource()).build();
  }

  /** A sample's own fields as one GPU of a batch. */
  public static GpuReading reading(GpuSample s) {
    return GpuReading.newBuilder().setGpuId(s.getGpuId()).setGpuIndex(s.getGpuIndex())
        .setModel(s.getModel()).setState(s.getState()).setUtilizationPct(s.getUtilizationPct())
        .setMemoryUsedMiB(s.getMemoryUsedMiB()).setMemoryFreeMiB(s.getMemoryFreeMiB())
        .setPowerWatts(s.getPowerWatts()).setTemperatureC(s.getTemperatureC())
        .setNamespace(s.getNamespace()).setPod(s.getPod()).setContainer(s.getContainer())
        .setJobId(s.getJobId()).setServiceId(s.getServiceId()).build();
  }

  /** What a batch is identified by: the node, and the scrape's time, cluster and source. */
  private record Scrape(String cluster, String nodeId, Instant sampledAt, SampleSource source) {}

  /**
   * A scrape's samples as batches: one per node (and per cluster, sampledAt and source, which a
   * batch carries once), in the order each node first appears, its GPUs in the samples' order.
   * {@code samples(ofScrape(xs))}, concatenated, is {@code xs} grouped by node, order kept within
   * each node; {@code maxPerBatch} splits a node with more GPUs than one batch may list.
   */
  public static List<GpuSampleBatch> ofScrape(List<GpuSample> samples, int maxPerBatch) {
    if (maxPerBatch < 1) {
      throw new IllegalArgumentException("maxPerBatch must be at least 1, got " + maxPerBatch);
    }
    Map<Scrape, List<GpuReading>> nodes = new LinkedHashMap<>();
    for (GpuSample s : samples) {
      Objects.requireNonNull(s.getSampledAt(), "sampledAt");
      nodes.computeIfAbsent(new Scrape(s.getCluster(), s.getNodeId(), s.getSampledAt(),
          s.getSource()), k -> new ArrayList<>())
          .add(reading(s));
    }
    List<GpuSampleBatch> out = new ArrayList<>(nodes.size());
    for (Map.Entry<Scrape, List<GpuReading>> e : nodes.entrySet()) {
      List<GpuReading> gpus = e.getValue();
      for (int from = 0; from < gpus.size(); from += maxPerBatch) {
        out.add(GpuSampleBatch.newBuilder().setCluster(e.getKey().cluster())
            .setNodeId(e.getKey().nodeId()).setSampledAt(e.getKey().sampledAt())
            .setSource(e.getKey().source())
            .setGpus(List.copyOf(gpus.subList(from, Math.min(gpus.size(), from + maxPerBatch))))
            .build());
      }
    }
    return out;
  }
}
