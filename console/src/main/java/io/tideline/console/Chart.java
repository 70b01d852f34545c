package io.tideline.console;

import java.util.List;
import java.util.Locale;

/**
 * Server-side line charts as inline SVG: no charting library in the browser, and the page costs
 * the same however many events the series folded.
 */
final class Chart {

  /** One line: its name, CSS colour and values (one per x step). */
  record Series(String name, String colour, List<Double> values) {}

  private Chart() {}

  static String svg(int width, int height, List<String> xLabels, List<Series> series) {
    double max = 1;
    int n = 0;
    for (Series s : series) {
      n = Math.max(n, s.values().size());
      for (Double v : s.values()) {
        if (v != null && !v.isNaN() && !v.isInfinite()) {
          max = Math.max(max, v);
        }
      }
    }
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT,
        "<svg class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">",
        width, height + 20, width, height + 20));
    sb.append(String.format(Locale.ROOT,
        "<text x=\"2\" y=\"12\" class=\"axis\">%.0f</text><line x1=\"0\" y1=\"%d\" x2=\"%d\" y2=\"%d\""
            + " class=\"axis\"/>", max, height, width, height));
    for (Series s : series) {
      StringBuilder pts = new StringBuilder();
      for (int i = 0; i < s.values().size(); i++) {
        Double v = s.values().get(i);
        if (v == null) {
          continue;
        }
        double x = n <= 1 ? 0 : i * (width - 1.0) / (n - 1);
        double y = height - v / max * (height - 14);
        pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
      }
      sb.append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"").append(s.colour())
          .append("\" points=\"").append(pts.toString().trim()).append("\"><title>")
          .append(escape(s.name())).append("</title></polyline>");
    }
    if (!xLabels.isEmpty()) {
      sb.append("<text x=\"0\" y=\"").append(height + 16).append("\" class=\"axis\">")
          .append(escape(xLabels.get(0))).append("</text>");
      sb.append("<text x=\"").append(width).append("\" y=\"").append(height + 16)
          .append("\" text-anchor=\"end\" class=\"axis\">")
          .append(escape(xLabels.get(xLabels.size() - 1))).append("</text>");
    }
    return sb.append("</svg>").toString();
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
