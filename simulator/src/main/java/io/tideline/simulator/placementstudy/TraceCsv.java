package io.tideline.simulator.placementstudy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the public GPU-cluster trace's CSVs (Alibaba cluster-trace-gpu-v2023 layout): columns are
 * found by header name, so extra columns (qos, pod_phase, times) are allowed and ignored. Every
 * problem is reported as {@code file:line: what is wrong}. Values never contain commas in that
 * format, so a plain split is the whole grammar.
 */
public final class TraceCsv {

  static final List<String> NODE_COLUMNS = List.of("sn", "cpu_milli", "memory_mib", "gpu", "model");
  static final List<String> POD_COLUMNS = List.of("name", "cpu_milli", "memory_mib", "num_gpu",
      "gpu_milli", "gpu_spec");

  private TraceCsv() {}

  /** The nodes of {@code file}. */
  public static List<StudyNode> readNodes(Path file) {
    return readNodes(file.toString(), open(file));
  }

  /** The pods of {@code file}. */
  public static List<StudyPod> readPods(Path file) {
    return readPods(file.toString(), open(file));
  }

  /** The nodes read from {@code in}, errors named after {@code file}. */
  public static List<StudyNode> readNodes(String file, Reader in) {
    List<StudyNode> out = new ArrayList<>();
    Set<String> ids = new HashSet<>();
    rows(file, in, NODE_COLUMNS, (line, c) -> {
      String sn = unique(file, line, c, "sn", ids);
      int gpus = (int) number(file, line, c, "gpu", 0, 1024);
      String model = c.get("model").trim();
      if (gpus > 0 && model.isEmpty()) {
        throw new TraceCsvException(file, line, "node " + sn + " has " + gpus
            + " GPUs but no model");
      }
      out.add(new StudyNode(sn, number(file, line, c, "cpu_milli", 0, Long.MAX_VALUE),
          number(file, line, c, "memory_mib", 0, Long.MAX_VALUE / (1L << 20)), gpus, model));
    });
    if (out.isEmpty()) {
      throw new TraceCsvException(file, 1, "no nodes");
    }
    return out;
  }

  /** The pods read from {@code in}, errors named after {@code file}. */
  public static List<StudyPod> readPods(String file, Reader in) {
    List<StudyPod> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    rows(file, in, POD_COLUMNS, (line, c) -> {
      String name = unique(file, line, c, "name", names);
      int numGpu = (int) number(file, line, c, "num_gpu", 0, 1024);
      int milli = (int) number(file, line, c, "gpu_milli", 0, PlacementStudy.MILLI);
      if (numGpu > 1 && milli != 0 && milli != PlacementStudy.MILLI) {
        throw new TraceCsvException(file, line, "pod " + name + ": gpu_milli " + milli
            + " with num_gpu " + numGpu + " (a share below 1000 needs num_gpu 1)");
      }
      if (numGpu == 1 && milli == 0) {
        throw new TraceCsvException(file, line, "pod " + name + ": num_gpu 1 with gpu_milli 0");
      }
      String spec = c.get("gpu_spec").trim();
      List<String> models = spec.isEmpty() ? List.of()
          : Arrays.stream(spec.split("\\|")).map(String::trim).filter(s -> !s.isEmpty()).toList();
      out.add(new StudyPod(name, number(file, line, c, "cpu_milli", 0, Long.MAX_VALUE),
          number(file, line, c, "memory_mib", 0, Long.MAX_VALUE / (1L << 20)), numGpu,
          numGpu == 0 ? 0 : milli, models));
    });
    if (out.isEmpty()) {
      throw new TraceCsvException(file, 1, "no pods");
    }
    return out;
  }

  private interface RowHandler {
    void row(int line, Map<String, String> cells);
  }

  private static void rows(String file, Reader in, List<String> required, RowHandler h) {
    try (BufferedReader r = new BufferedReader(in)) {
      String header = r.readLine();
      if (header == null) {
        throw new TraceCsvException(file, 1, "empty file, expected a header with "
            + String.join(",", required));
      }
      String[] names = header.replace("\uFEFF", "").split(",", -1);
      Map<String, Integer> col = new HashMap<>();
      for (int i = 0; i < names.length; i++) {
        col.put(names[i].trim(), i);
      }
      for (String c : required) {
        if (!col.containsKey(c)) {
          throw new TraceCsvException(file, 1, "missing column '" + c + "' (header: " + header
              + ")");
        }
      }
      int line = 1;
      for (String s = r.readLine(); s != null; s = r.readLine()) {
        line++;
        if (s.isBlank()) {
          continue;
        }
        String[] v = s.split(",", -1);
        if (v.length != names.length) {
          throw new TraceCsvException(file, line, v.length + " fields, the header has "
              + names.length);
        }
        Map<String, String> cells = new HashMap<>();
        for (String c : required) {
          cells.put(c, v[col.get(c)]);
        }
        h.row(line, cells);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(file + ": " + e.getMessage(), e);
    }
  }

  private static String text(String file, int line, Map<String, String> c, String column) {
    String v = c.get(column).trim();
    if (v.isEmpty()) {
      throw new TraceCsvException(file, line, "empty " + column);
    }
    return v;
  }

  /** The non-empty {@code column}, not yet in {@code seen} (then added). */
  private static String unique(String file, int line, Map<String, String> c, String column,
      Set<String> seen) {
    String v = text(file, line, c, column);
    if (!seen.add(v)) {
      throw new TraceCsvException(file, line, "duplicate " + column + " '" + v + "'");
    }
    return v;
  }

  private static long number(String file, int line, Map<String, String> c, String column,
      long min, long max) {
    String v = c.get(column).trim();
    long x;
    try {
      // the public trace writes some integers as 1000.0
      double d = Double.parseDouble(v);
      if (d != Math.rint(d)) {
        throw new NumberFormatException();
      }
      x = (long) d;
    } catch (NumberFormatException e) {
      throw new TraceCsvException(file, line, column + " '" + v + "' is not a whole number");
    }
    if (x < min || x > max) {
      throw new TraceCsvException(file, line, column + " " + x + " out of range [" + min + ", "
          + max + "]");
    }
    return x;
  }

  private static Reader open(Path file) {
    try {
      return Files.newBufferedReader(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new TraceCsvException(file.toString(), 0, "cannot read: " + e.getMessage());
    }
  }
}
