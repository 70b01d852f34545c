package io.tideline.telemetry.inventory;

import io.tideline.core.model.Resources;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Inventory from two files, re-read on every call so an edit shows up as node events:
 *
 * <ul>
 *   <li>a topology CSV in the format of the Lingjun network export, header {@code ip,DSW,PSW,ASW}
 *       (columns found by name): one row per host — the set of nodes; optional columns
 *       {@code cpuMillis} and {@code memoryBytes} give a host's allocatable CPU and memory (ADR
 *       0030, the same columns the core's {@code TopologyCsv} reads; absent or blank = not
 *       declared);
 *   <li>an optional node→GPU CSV, header {@code host,gpuModel,gpuCount,gpuMemoryMiB,nvlinkIslands};
 *       hosts it does not list get the configured defaults.
 * </ul>
 *
 * A path starting {@code classpath:} is read from the class path.
 */
public final class FileInventorySource implements InventorySource {

  /** GPU details of hosts not in the GPU file. */
  public record GpuDefaults(String model, int count, int memoryMiB, int nvlinkIslands) {}

  private final String topologyFile;
  private final String gpuFile;
  private final GpuDefaults defaults;
  private final Set<String> drainList;

  public FileInventorySource(String topologyFile, String gpuFile, GpuDefaults defaults,
      List<String> drainList) {
    this.topologyFile = topologyFile;
    this.gpuFile = gpuFile;
    this.defaults = defaults;
    this.drainList = Set.copyOf(drainList);
  }

  @Override
  public SortedMap<String, NodeState> snapshot() throws IOException {
    Map<String, GpuDefaults> gpus = gpuFile == null ? Map.of() : readGpus(gpuFile);
    SortedMap<String, NodeState> out = new TreeMap<>();
    List<String[]> rows = readCsv(topologyFile);
    String[] header = rows.get(0);
    int ip = column(header, "ip", topologyFile);
    int dsw = column(header, "DSW", topologyFile);
    int psw = column(header, "PSW", topologyFile);
    int asw = column(header, "ASW", topologyFile);
    int cpu = optionalColumn(header, "cpuMillis");
    int mem = optionalColumn(header, "memoryBytes");
    for (int r = 1; r < rows.size(); r++) {
      String[] f = rows.get(r);
      if (f.length < header.length) {
        throw new IOException(topologyFile + ": row " + (r + 1) + " has " + f.length + " columns");
      }
      String host = f[ip];
      GpuDefaults g = gpus.getOrDefault(host, defaults);
      NodeState.SwitchPath sw = NodeState.qualify(f[dsw], f[psw], f[asw]);
      out.put(host, new NodeState(host, g.model(), g.memoryMiB(), g.count(), g.nvlinkIslands(),
          sw.access(), sw.aggregation(), sw.core(), drainList.contains(host), Map.of(),
          Resources.of(quantity(f, cpu, r + 1, "cpuMillis"),
              quantity(f, mem, r + 1, "memoryBytes"))));
    }
    return out;
  }

  static Map<String, GpuDefaults> readGpus(String file) throws IOException {
    List<String[]> rows = readCsv(file);
    String[] h = rows.get(0);
    int host = column(h, "host", file);
    int model = column(h, "gpuModel", file);
    int count = column(h, "gpuCount", file);
    int mem = column(h, "gpuMemoryMiB", file);
    int islands = column(h, "nvlinkIslands", file);
    Map<String, GpuDefaults> out = new HashMap<>();
    for (int r = 1; r < rows.size(); r++) {
      String[] f = rows.get(r);
      try {
        out.put(f[host], new GpuDefaults(f[model], Integer.parseInt(f[count]),
            Integer.parseInt(f[mem]), Integer.parseInt(f[islands])));
      } catch (RuntimeException e) {
        throw new IOException(file + ": row " + (r + 1) + " is not host,model,count,MiB,islands: " + e);
      }
    }
    return out;
  }

  static int column(String[] header, String name, String file) throws IOException {
    int i = optionalColumn(header, name);
    if (i < 0) {
      throw new IOException(file + ": no column " + name + " in header " + String.join(",", header));
    }
    return i;
  }

  static int optionalColumn(String[] header, String name) {
    for (int i = 0; i < header.length; i++) {
      if (header[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /** An optional non-negative quantity column; absent or blank = 0 (not declared). */
  private long quantity(String[] f, int col, int row, String name) throws IOException {
    if (col < 0 || f[col].isEmpty()) {
      return 0;
    }
    try {
      long v = Long.parseLong(f[col]);
      if (v < 0) {
        throw new NumberFormatException("negative");
      }
      return v;
    } catch (NumberFormatException e) {
      throw new IOException(topologyFile + ": row " + row + ": " + name
          + " must be a non-negative whole number, got " + f[col]);
    }
  }

  static List<String[]> readCsv(String location) throws IOException {
    try (InputStream in = open(location);
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      List<String[]> rows = r.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#"))
          .map(l -> {
            String[] f = l.split(",", -1);
            for (int i = 0; i < f.length; i++) {
              f[i] = f[i].strip();
            }
            return f;
          }).toList();
      if (rows.isEmpty()) {
        throw new IOException(location + " is empty");
      }
      return rows;
    }
  }

  static InputStream open(String location) throws IOException {
    if (location.startsWith("classpath:")) {
      String res = location.substring("classpath:".length());
      InputStream in = Thread.currentThread().getContextClassLoader().getResourceAsStream(res);
      if (in == null) {
        throw new IOException("no class path resource " + res);
      }
      return in;
    }
    return Files.newInputStream(Path.of(location));
  }
}
