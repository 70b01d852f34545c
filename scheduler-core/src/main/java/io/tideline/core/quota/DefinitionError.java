package io.tideline.core.quota;

/**
 * One reason a quota definition cannot be used: the node's path and what is wrong, in words an
 * operator can act on (they end up in the service's rejection and the CLI's error).
 */
public record DefinitionError(String path, String reason) {

  @Override
  public String toString() {
    return path + ": " + reason;
  }
}
