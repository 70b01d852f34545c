package io.tideline.simulator.placementstudy;

/** A nodes or pods CSV the study cannot read; the message starts with {@code file:line:}. */
public final class TraceCsvException extends RuntimeException {
  public TraceCsvException(String file, int line, String message) {
    super(file + ":" + line + ": " + message);
  }
}
