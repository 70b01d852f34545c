package io.tideline.simulator;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;

/**
 * The single self-contained HTML report of a run: the scenario and seed, the results table and
 * every chart inlined as a base64 PNG, so the file can be mailed or opened anywhere without its
 * neighbours.
 */
public final class HtmlReport {

  private HtmlReport() {}

  /**
   * Writes {@code file}.
   *
   * @param title heading
   * @param scenario one paragraph per line: scenario, seed, command, timings
   * @param table the results table ({@link Report#html()})
   * @param charts PNG files; each one's caption is looked up in {@link Charts#CAPTIONS}
   */
  public static void write(Path file, String title, List<String> scenario, String table,
      List<Path> charts) throws IOException {
    StringBuilder sb = new StringBuilder();
    sb.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>")
        .append(escape(title)).append("</title>\n<style>\n")
        .append("body{font-family:sans-serif;max-width:1060px;margin:2em auto;color:#222}\n")
        .append("table{border-collapse:collapse;font-size:14px}\n")
        .append("th,td{border:1px solid #ccc;padding:3px 8px}\n")
        .append("th{background:#f0f0f0}\ntd.n{text-align:right;font-variant-numeric:tabular-nums}\n")
        .append("figure{margin:1.5em 0}\nfigcaption{font-size:14px;color:#555}\n")
        .append("code{background:#f4f4f4;padding:1px 4px}\n</style>\n</head>\n<body>\n<h1>")
        .append(escape(title)).append("</h1>\n");
    for (String line : scenario) {
      sb.append("<p>").append(escape(line)).append("</p>\n");
    }
    sb.append("<h2>Results</h2>\n").append(table).append("<h2>Charts</h2>\n");
    for (Path png : charts) {
      String name = png.getFileName().toString();
      sb.append("<figure><img alt=\"").append(escape(name)).append("\" src=\"data:image/png;base64,")
          .append(Base64.getEncoder().encodeToString(Files.readAllBytes(png)))
          .append("\"><figcaption>").append(escape(Charts.CAPTIONS.getOrDefault(name, name)))
          .append("</figcaption></figure>\n");
    }
    sb.append("</body>\n</html>\n");
    Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
  }

  /** Escapes text for HTML element content and attribute values. */
  static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
