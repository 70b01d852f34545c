package io.tideline.telemetry.inventory;

import io.tideline.core.cluster.Node;
import io.tideline.core.cluster.TopologyCsv;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
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
 *       0030; absent or blank = not declared). Read by the core's {@link TopologyCsv}, the one
 *       reader of this table (the simulator's too), so its rules are this file's: {@code #}
 *       comment and blank lines skipped, a host listed twice, a blank field or a quantity that is
 *       not a whole number {@code >= 0} refused naming the file and line;
 *   <li>an optional node→GPU CSV, header {@code host,gpuModel,gpuCount,gpuMemoryMiB,nvlinkIslands};
 *       hosts it does not list get the configured defaults.
 * </ul>
 *
 * A path starting {@code classpath:} is read from the class path.
 */
public final class FileInventorySource implements InventorySource {

  /** GPU details of hosts not in the GPU file. */
  public record GpuDefaults(String model, int count, int memoryMiB, int nvlinkIslands) {}

  private static final String PLACEHOLDER_MODEL = "from the GPU file or the defaults";

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
    for (Node n : readTopology()) {
      String host = n.id();
      GpuDefaults g = gpus.getOrDefault(host, defaults);
      NodeState.SwitchPath sw = NodeState.qualify(n.path().dsw(), n.path().psw(), n.path().asw());
      out.put(host, new NodeState(host, g.model(), g.memoryMiB(), g.count(), g.nvlinkIslands(),
          sw.access(), sw.aggregation(), sw.core(), drainList.contains(host), Map.of(),
          n.allocatable()));
    }
    return out;
  }

  /**
   * The topology file's hosts, read by the core's {@link TopologyCsv} (the one reader of the
   * table); its refusals, which name the line, come back as an {@link IOException} naming the file.
   */
  private List<Node> readTopology() throws IOException {
    try (Reader in = new InputStreamReader(open(topologyFile), StandardCharsets.UTF_8)) {
      // The table has no GPU facts, so these are placeholders: each host's GPUs come from the
      // GPU file or the defaults above (which may say 0 GPUs, a count a core Node refuses).
      return TopologyCsv.parse(in, PLACEHOLDER_MODEL, 1);
    } catch (IllegalArgumentException e) {
      throw new IOException(topologyFile + ": " + e.getMessage(), e);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
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
