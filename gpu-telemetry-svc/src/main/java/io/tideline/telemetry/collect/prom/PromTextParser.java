package io.tideline.telemetry.collect.prom;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A parser for the Prometheus text exposition format (version 0.0.4), written for robustness
 * rather than speed: an exporter is someone else's process, and one bad line must cost that line
 * only. Handles {@code # HELP} / {@code # TYPE} lines and other comments, label values with the
 * escapes {@code \\}, {@code \"} and {@code \n}, a trailing comma in the label set, the values
 * {@code NaN}, {@code +Inf}, {@code -Inf}, and an optional integer timestamp in milliseconds.
 *
 * <p>Anything else (a broken label set, an unparsable value, trailing garbage) becomes a
 * {@link PromParseResult.Malformed} entry with the reason, and parsing continues with the next line.
 */
public final class PromTextParser {

  private PromTextParser() {}

  /** Parses a whole exposition body. */
  public static PromParseResult parse(String body) {
    List<PromSample> samples = new ArrayList<>();
    Map<String, String> types = new HashMap<>();
    List<PromParseResult.Malformed> malformed = new ArrayList<>();
    int lineNumber = 0;
    int start = 0;
    int n = body.length();
    while (start <= n) {
      int end = body.indexOf('\n', start);
      if (end < 0) {
        end = n;
      }
      lineNumber++;
      String line = body.substring(start, end);
      if (!line.isEmpty() && line.charAt(line.length() - 1) == '\r') {
        line = line.substring(0, line.length() - 1);
      }
      parseLine(line, lineNumber, samples, types, malformed);
      start = end + 1;
    }
    return new PromParseResult(List.copyOf(samples), Map.copyOf(types), List.copyOf(malformed));
  }

  private static void parseLine(String line, int lineNumber, List<PromSample> samples,
      Map<String, String> types, List<PromParseResult.Malformed> malformed) {
    String trimmed = line.strip();
    if (trimmed.isEmpty()) {
      return;
    }
    if (trimmed.charAt(0) == '#') {
      // "# TYPE name type" declares a type; HELP and any other comment carry nothing we need.
      String[] parts = trimmed.substring(1).strip().split("[ \t]+", 3);
      if (parts.length == 3 && parts[0].equals("TYPE")) {
        types.put(parts[1], parts[2].strip());
      }
      return;
    }
    try {
      samples.add(new Cursor(trimmed).sample());
    } catch (IllegalArgumentException e) {
      malformed.add(new PromParseResult.Malformed(lineNumber, line, e.getMessage()));
    }
  }

  /** Parses a single value token as the format defines it. */
  public static double parseValue(String token) {
    switch (token) {
      case "NaN":
        return Double.NaN;
      case "+Inf":
      case "Inf":
        return Double.POSITIVE_INFINITY;
      case "-Inf":
        return Double.NEGATIVE_INFINITY;
      default:
        // Reject what Java accepts but Prometheus does not ("Infinity", hex floats, "1d", "2f").
        for (int i = 0; i < token.length(); i++) {
          char c = token.charAt(i);
          if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) {
            throw new IllegalArgumentException("not a number: '" + token + "'");
          }
        }
        try {
          return Double.parseDouble(token);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("not a number: '" + token + "'");
        }
    }
  }

  /** A left-to-right reader over one sample line. */
  private static final class Cursor {
    private final String s;
    private int i;

    Cursor(String s) {
      this.s = s;
    }

    PromSample sample() {
      // 1. metric name, 2. optional label set, 3. value, 4. optional timestamp, 5. nothing else.
      String name = name("metric name");
      Map<String, String> labels = Map.of();
      if (i < s.length() && s.charAt(i) == '{') {
        labels = labels();
      }
      if (!skipBlanks()) {
        throw new IllegalArgumentException("expected whitespace and a value after " + name);
      }
      double value = parseValue(token());
      Long timestamp = null;
      if (skipBlanks()) {
        String ts = token();
        try {
          timestamp = Long.parseLong(ts);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("not a timestamp: '" + ts + "'");
        }
        if (skipBlanks() || i < s.length()) {
          throw new IllegalArgumentException("unexpected text after the timestamp");
        }
      }
      return new PromSample(name, labels, value, timestamp);
    }

    private String name(String what) {
      int begin = i;
      while (i < s.length()) {
        char c = s.charAt(i);
        boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'
            || (i > begin && c >= '0' && c <= '9');
        if (!ok) {
          break;
        }
        i++;
      }
      if (i == begin) {
        throw new IllegalArgumentException("expected a " + what + " at column " + (i + 1));
      }
      return s.substring(begin, i);
    }

    private Map<String, String> labels() {
      Map<String, String> out = new LinkedHashMap<>();
      i++; // '{'
      while (true) {
        skipBlanks();
        if (i >= s.length()) {
          throw new IllegalArgumentException("unterminated label set");
        }
        if (s.charAt(i) == '}') {
          i++;
          return out;
        }
        String key = name("label name");
        skipBlanks();
        expect('=');
        skipBlanks();
        expect('"');
        String value = quoted();
        if (out.put(key, value) != null) {
          throw new IllegalArgumentException("duplicate label " + key);
        }
        skipBlanks();
        if (i < s.length() && s.charAt(i) == ',') {
          i++;
        } else if (i < s.length() && s.charAt(i) != '}') {
          throw new IllegalArgumentException("expected ',' or '}' at column " + (i + 1));
        }
      }
    }

    private String quoted() {
      StringBuilder b = new StringBuilder();
      while (i < s.length()) {
        char c = s.charAt(i++);
        if (c == '"') {
          return b.toString();
        }
        if (c == '\\') {
          if (i >= s.length()) {
            break;
          }
          char e = s.charAt(i++);
          switch (e) {
            case '\\' -> b.append('\\');
            case '"' -> b.append('"');
            case 'n' -> b.append('\n');
            default -> throw new IllegalArgumentException("bad escape \\" + e + " in a label value");
          }
        } else {
          b.append(c);
        }
      }
      throw new IllegalArgumentException("unterminated label value");
    }

    private void expect(char c) {
      if (i >= s.length() || s.charAt(i) != c) {
        throw new IllegalArgumentException("expected '" + c + "' at column " + (i + 1));
      }
      i++;
    }

    /** Skips spaces and tabs; true if any were skipped and text follows. */
    private boolean skipBlanks() {
      int begin = i;
      while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
        i++;
      }
      return i > begin && i < s.length();
    }

    private String token() {
      int begin = i;
      while (i < s.length() && s.charAt(i) != ' ' && s.charAt(i) != '\t') {
        i++;
      }
      return s.substring(begin, i);
    }
  }
}
