package io.tideline.console.monitoring;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Just enough PromQL to find the metric names an expression selects. */
final class PromQl {

  private static final Set<String> WORDS = Set.of("sum", "min", "max", "avg", "count", "rate",
      "irate", "increase", "by", "without", "on", "ignoring", "group_left", "group_right", "or",
      "and", "unless", "bool", "offset", "histogram_quantile", "vector", "scalar", "abs",
      "clamp_min", "clamp_max", "topk", "bottomk", "quantile", "stddev", "delta", "deriv",
      "label_replace", "time", "absent");
  private static final Pattern IDENT = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

  private PromQl() {}

  static Set<String> metricNames(String expr) {
    String e = expr.replaceAll("\"[^\"]*\"", "\"\"")
        .replaceAll("\\{[^}]*}", " ")
        .replaceAll("\\[[^]]*]", " ")
        .replaceAll("(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
    Set<String> names = new LinkedHashSet<>();
    Matcher m = IDENT.matcher(e);
    while (m.find()) {
      String id = m.group();
      int after = m.end();
      while (after < e.length() && e.charAt(after) == ' ') {
        after++;
      }
      boolean call = after < e.length() && e.charAt(after) == '(';
      boolean number = m.start() > 0 && Character.isDigit(e.charAt(m.start() - 1));
      if (!call && !number && !WORDS.contains(id)) {
        names.add(id);
      }
    }
    return names;
  }
}
