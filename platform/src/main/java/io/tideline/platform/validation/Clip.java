package io.tideline.platform.validation;

/**
 * Shortens a value quoted in a reason: a dead letter already carries the original bytes, so its
 * reason names a hostile 400,000-character id by its start and length, never whole (a letter
 * twice the size of its record would itself be too large for the broker).
 */
public final class Clip {

  /** Longest quoted value, in characters. */
  public static final int MAX = 64;

  private Clip() {}

  /** {@code value}, or its first characters and its length when longer than {@link #MAX}. */
  public static String of(CharSequence value) {
    if (value == null) {
      return "null";
    }
    if (value.length() <= MAX) {
      return value.toString();
    }
    return value.subSequence(0, 40) + "… (" + value.length() + " characters)";
  }

  /** A reason cut to {@code max} characters (messages of exceptions can quote whole records). */
  public static String reason(String reason, int max) {
    if (reason == null) {
      return "";
    }
    return reason.length() <= max ? reason
        : reason.substring(0, max) + "… (" + reason.length() + " characters)";
  }
}
