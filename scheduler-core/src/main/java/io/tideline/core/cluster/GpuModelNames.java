package io.tideline.core.cluster;

import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * GPU model names as jobs write them versus as inventories report them (T5). The inventory says
 * {@code NVIDIA H100 80GB HBM3} (the driver's product name), a user asks for {@code H100}: the
 * same hardware, and exact string equality refused the job. A requested model matches a node's
 * model when, after normalisation (trimmed, upper case, single spaces):
 *
 * <ol>
 *   <li>both names are equal (an exact product name still selects exactly that product), or
 *   <li>the request equals the node model's <i>family</i>: its configured alias if it has one, else
 *       the first word after a leading vendor word ({@code NVIDIA}, {@code AMD}, {@code INTEL}) cut
 *       at its first '-' ({@code NVIDIA H100 80GB HBM3} → {@code H100},
 *       {@code NVIDIA A100-SXM4-80GB} → {@code A100}), or
 *   <li>the request is itself a configured alias whose family is the node model's family.
 * </ol>
 *
 * So a family name matches every product of the family, a product name only itself.
 *
 * @param aliases normalised name → family (either side may be a node's or a job's name)
 */
public record GpuModelNames(SortedMap<String, String> aliases) {

  /** No aliases: the built-in rule (vendor word dropped, first word) only. */
  public static final GpuModelNames DEFAULTS = new GpuModelNames(new TreeMap<>());

  private static final List<String> VENDORS = List.of("NVIDIA", "AMD", "INTEL");

  public GpuModelNames {
    TreeMap<String, String> copy = new TreeMap<>();
    aliases.forEach((k, v) -> {
      if (norm(k).isEmpty() || norm(v).isEmpty()) {
        throw new IllegalArgumentException("GPU model alias must name both sides: " + k + "=" + v);
      }
      copy.put(norm(k), norm(v));
    });
    aliases = Collections.unmodifiableSortedMap(copy);
  }

  /**
   * Aliases from {@code name=family} entries (the service config's list form); blank entries are
   * skipped.
   */
  public static GpuModelNames parse(List<String> entries) {
    TreeMap<String, String> m = new TreeMap<>();
    for (String e : entries) {
      if (e == null || e.isBlank()) {
        continue;
      }
      int i = e.indexOf('=');
      if (i <= 0 || i == e.length() - 1) {
        throw new IllegalArgumentException("GPU model alias '" + e + "' is not name=family");
      }
      m.put(e.substring(0, i), e.substring(i + 1));
    }
    return new GpuModelNames(m);
  }

  /** Trimmed, upper case, runs of whitespace as one space. */
  public static String norm(String name) {
    return name == null ? "" : name.trim().replaceAll("\\s+", " ").toUpperCase(Locale.ROOT);
  }

  /** The family of a model name: its alias, else the first word after any vendor word, to '-'. */
  public String family(String model) {
    String n = norm(model);
    String alias = aliases.get(n);
    if (alias != null) {
      return alias;
    }
    String[] words = n.split(" ");
    int i = words.length > 1 && VENDORS.contains(words[0]) ? 1 : 0;
    int dash = words[i].indexOf('-');
    return dash > 0 ? words[i].substring(0, dash) : words[i];
  }

  /** Whether a job asking for {@code requested} may run on a node reporting {@code nodeModel}. */
  public boolean matches(String requested, String nodeModel) {
    if (requested.equals(nodeModel)) {
      return true; // the common case, without normalising
    }
    String r = norm(requested);
    String n = norm(nodeModel);
    if (r.equals(n)) {
      return true;
    }
    String fam = family(nodeModel);
    return r.equals(fam) || (aliases.containsKey(r) && aliases.get(r).equals(fam));
  }

  /** Whether any of the allowed models matches; an empty list allows every model. */
  public boolean allows(List<String> allowed, String nodeModel) {
    if (allowed.isEmpty()) {
      return true;
    }
    for (String a : allowed) {
      if (matches(a, nodeModel)) {
        return true;
      }
    }
    return false;
  }

  /** For traces: the aliases as {@code name=family}. */
  public Map<String, String> asMap() {
    return aliases;
  }
}
