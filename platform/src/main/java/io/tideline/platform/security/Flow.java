package io.tideline.platform.security;

import java.util.ArrayList;
import java.util.List;

/**
 * The catalogue's {@code producer -> consumers} column, read as words: {@code ;} separates
 * parties, {@code /} alternatives of one party ({@code telemetry/simulator}), and a parenthesis is
 * a comment ({@code notifier (restored at start)}).
 *
 * @param producers who writes the topic, in the catalogue's words
 * @param consumers who reads it, in the catalogue's words
 */
public record Flow(List<String> producers, List<String> consumers) {

  public Flow {
    producers = List.copyOf(producers);
    consumers = List.copyOf(consumers);
  }

  /** Parses one flow column; {@code where} names it in errors. */
  public static Flow parse(String column, String where) {
    int arrow = column.indexOf("->");
    if (arrow < 0 || column.indexOf("->", arrow + 2) >= 0) {
      throw new IllegalStateException(where + ": the flow must be \"producers -> consumers\", got \""
          + column + "\"");
    }
    List<String> producers = words(column.substring(0, arrow), where);
    List<String> consumers = words(column.substring(arrow + 2), where);
    if (producers.isEmpty() || consumers.isEmpty()) {
      throw new IllegalStateException(where + ": a flow names at least one producer and one"
          + " consumer, got \"" + column + "\"");
    }
    return new Flow(producers, consumers);
  }

  private static List<String> words(String side, String where) {
    String plain = side.replaceAll("\\([^)]*\\)", "");
    if (plain.contains("(") || plain.contains(")")) {
      throw new IllegalStateException(where + ": unbalanced parenthesis in \"" + side + "\"");
    }
    List<String> out = new ArrayList<>();
    for (String party : plain.split(";")) {
      for (String word : party.split("/")) {
        String w = word.trim();
        if (!w.isEmpty() && !out.contains(w)) {
          out.add(w);
        }
      }
    }
    return out;
  }
}
