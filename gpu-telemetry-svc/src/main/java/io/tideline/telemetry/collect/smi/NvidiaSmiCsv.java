package io.tideline.telemetry.collect.smi;

import io.tideline.events.GpuSample;
import io.tideline.events.SampleSource;
import io.tideline.events.SampleState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses the output of {@code nvidia-smi --query-gpu=index,uuid,name,utilization.gpu,memory.used,
 * memory.free,power.draw,temperature.gpu --format=csv,noheader,nounits}: one line per GPU, eight
 * comma-separated fields. nvidia-smi writes {@code [N/A]}, {@code [Not Supported]} (and, on a
 * sick GPU, {@code [Unknown Error]} or {@code [GPU is lost]}) where it has no figure: those become
 * null, never 0. A line that is not eight fields, or whose index or figures are not numbers, is
 * skipped and counted.
 */
public final class NvidiaSmiCsv {

  /** Samples of the lines that parsed, and the lines that did not (with the reason). */
  public record Parsed(List<GpuSample> samples, List<String> malformed) {}

  static final int FIELDS = 8;

  private NvidiaSmiCsv() {}

  public static Parsed parse(String text, String cluster, String nodeId, Instant now) {
    List<GpuSample> samples = new ArrayList<>();
    List<String> malformed = new ArrayList<>();
    int lineNumber = 0;
    for (String raw : text.split("\n", -1)) {
      lineNumber++;
      String line = raw.strip();
      if (line.isEmpty()) {
        continue;
      }
      try {
        samples.add(parseLine(line, cluster, nodeId, now));
      } catch (IllegalArgumentException e) {
        malformed.add("line " + lineNumber + ": " + e.getMessage());
      }
    }
    return new Parsed(samples, malformed);
  }

  static GpuSample parseLine(String line, String cluster, String nodeId, Instant now) {
    String[] f = line.split(",", -1);
    if (f.length != FIELDS) {
      throw new IllegalArgumentException("expected " + FIELDS + " fields, got " + f.length);
    }
    for (int i = 0; i < f.length; i++) {
      f[i] = f[i].strip();
    }
    int index;
    try {
      index = Integer.parseInt(f[0]);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("index is not a number: '" + f[0] + "'");
    }
    if (f[1].isEmpty() || f[1].startsWith("[")) {
      throw new IllegalArgumentException("no GPU UUID");
    }
    return GpuSample.newBuilder()
        .setGpuId(f[1])
        .setCluster(cluster)
        .setNodeId(nodeId)
        .setGpuIndex(index)
        .setModel(f[2].startsWith("[") ? "" : f[2])
        .setSampledAt(now)
        .setState(SampleState.OK)
        .setUtilizationPct(figure(f[3], "utilization.gpu"))
        .setMemoryUsedMiB(figure(f[4], "memory.used"))
        .setMemoryFreeMiB(figure(f[5], "memory.free"))
        .setPowerWatts(figure(f[6], "power.draw"))
        .setTemperatureC(figure(f[7], "temperature.gpu"))
        .setSource(SampleSource.NVIDIA_SMI)
        .build();
  }

  /** A figure, or null for nvidia-smi's bracketed "no value" markers. */
  static Double figure(String s, String field) {
    if (s.startsWith("[") && s.endsWith("]") || s.equals("N/A")) {
      return null;
    }
    try {
      double d = Double.parseDouble(s);
      if (!Double.isFinite(d)) {
        throw new NumberFormatException();
      }
      return d;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(field + " is not a number: '" + s + "'");
    }
  }
}
