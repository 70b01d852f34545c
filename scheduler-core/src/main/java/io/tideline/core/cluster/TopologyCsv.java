package io.tideline.core.cluster;

import io.tideline.core.model.Resources;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Builds nodes from a host-to-switch table (T1) in the format of the public 847-host Clos
 * topology: a header naming the columns {@code ip, DSW, PSW, ASW} (any order, case-insensitive)
 * and one host per line. The table carries no GPU facts, so the model and GPUs per node are given;
 * each host is its own NVLink island (HGX boards). Optional columns {@code cpuMillis} and
 * {@code memoryBytes} give a host's allocatable CPU and memory (ADR 0030); absent or blank = not
 * declared, so the node is not constrained in it. No file I/O here: the caller opens the reader.
 *
 * <p>Lines: blank lines and comment lines (first non-blank character {@code #}) are skipped
 * anywhere, before the header too; header names and fields are stripped of surrounding
 * whitespace. Errors name the line by its number in the input, skipped lines counted, so the
 * number is the one an editor shows.
 */
public final class TopologyCsv {

  private TopologyCsv() {}

  /** Parses {@code csv} text; see {@link #parse(Reader, String, int)}. */
  public static List<Node> parse(String csv, String gpuModel, int gpusPerNode) {
    return parse(new StringReader(csv), gpuModel, gpusPerNode);
  }

  /**
   * Parses the table, one node per data line, in file order; blank and {@code #} comment lines
   * are skipped (see the class comment).
   *
   * @throws IllegalArgumentException on an empty table, a missing column, a short line, a blank
   *     field, a quantity that is not a whole number {@code >= 0} or a duplicate host, naming the
   *     line
   */
  public static List<Node> parse(Reader csv, String gpuModel, int gpusPerNode) {
    try (BufferedReader in = new BufferedReader(csv)) {
      // 1. locate the four columns by header name (the first line that is not skipped)
      String header = null;
      String line;
      int lineNo = 0;
      while (header == null && (line = in.readLine()) != null) {
        lineNo++;
        if (!skipped(line)) {
          header = line;
        }
      }
      if (header == null) {
        throw new IllegalArgumentException("topology CSV is empty");
      }
      String[] cols = header.strip().split(",", -1);
      int ip = column(cols, "ip");
      int dsw = column(cols, "dsw");
      int psw = column(cols, "psw");
      int asw = column(cols, "asw");
      int cpu = optionalColumn(cols, "cpumillis");
      int mem = optionalColumn(cols, "memorybytes");
      // 2. one node per line that is neither blank nor a comment
      List<Node> nodes = new ArrayList<>();
      Set<String> seen = new HashSet<>();
      while ((line = in.readLine()) != null) {
        lineNo++;
        if (skipped(line)) {
          continue;
        }
        String[] f = line.strip().split(",", -1);
        if (f.length < cols.length) {
          throw new IllegalArgumentException("line " + lineNo + ": expected " + cols.length
              + " fields, got " + f.length);
        }
        String id = field(f, ip, lineNo, "ip");
        if (!seen.add(id)) {
          throw new IllegalArgumentException("line " + lineNo + ": duplicate host " + id);
        }
        nodes.add(new Node(id, gpuModel, gpusPerNode, id, new SwitchPath(
            field(f, dsw, lineNo, "DSW"), field(f, psw, lineNo, "PSW"),
            field(f, asw, lineNo, "ASW")), Resources.of(quantity(f, cpu, lineNo, "cpuMillis"),
            quantity(f, mem, lineNo, "memoryBytes"))));
      }
      return nodes;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Grows a topology to {@code targetNodes} by replicating it: copy 0 is {@code base} itself, copy
   * {@code k ≥ 1} renames every host and switch with the suffix {@code "~k"}, so replicas form
   * distinct switch domains with the same shape (a bigger Clos fabric of identical pods). Copies
   * are appended in base order until the target is reached; the last copy may be partial.
   */
  public static List<Node> scaleTo(List<Node> base, int targetNodes) {
    if (base.isEmpty() && targetNodes > 0) {
      throw new IllegalArgumentException("cannot scale an empty topology");
    }
    List<Node> out = new ArrayList<>(targetNodes);
    for (int k = 0; out.size() < targetNodes; k++) {
      for (Node n : base) {
        if (out.size() == targetNodes) {
          break;
        }
        out.add(k == 0 ? n : replica(n, "~" + k));
      }
    }
    return out;
  }

  private static Node replica(Node n, String suffix) {
    SwitchPath p = n.path();
    return new Node(n.id() + suffix, n.gpuModel(), n.gpuCount(), n.nvlinkIsland() + suffix,
        new SwitchPath(p.dsw() + suffix, p.psw() + suffix, p.asw() + suffix), n.allocatable());
  }

  /** A blank line or a comment line ({@code #} after optional whitespace). */
  private static boolean skipped(String line) {
    String s = line.strip();
    return s.isEmpty() || s.startsWith("#");
  }

  private static int column(String[] cols, String name) {
    int i = optionalColumn(cols, name);
    if (i < 0) {
      throw new IllegalArgumentException("topology CSV header lacks column " + name);
    }
    return i;
  }

  private static int optionalColumn(String[] cols, String name) {
    for (int i = 0; i < cols.length; i++) {
      if (cols[i].strip().toLowerCase(Locale.ROOT).equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /** A non-negative whole quantity of an optional column; absent or blank = 0 (undeclared). */
  private static long quantity(String[] f, int i, int lineNo, String name) {
    if (i < 0 || f[i].isBlank()) {
      return 0;
    }
    try {
      long v = Long.parseLong(f[i].strip());
      if (v < 0) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("line " + lineNo + ": " + name
          + " must be a whole number >= 0, got " + f[i].strip());
    }
  }

  private static String field(String[] f, int i, int lineNo, String name) {
    String v = f[i].strip();
    if (v.isEmpty()) {
      throw new IllegalArgumentException("line " + lineNo + ": blank " + name);
    }
    return v;
  }
}
