package io.tideline.core.kernel;

import java.util.List;
import java.util.Objects;

/**
 * What one {@code step(now, state, input)} of a kernel returns: the next state and the effects
 * the step decided, in the order they were decided.
 *
 * @param state the state after the input
 * @param effects what the adapter must carry out (publish, persist, act), in order
 * @param <S> the kernel's state type
 * @param <E> the kernel's effect type
 */
public record Step<S, E>(S state, List<E> effects) {

  public Step {
    Objects.requireNonNull(state, "state");
    effects = List.copyOf(effects);
  }

  /** A step that only changed the state. */
  public static <S, E> Step<S, E> of(S state) {
    return new Step<>(state, List.of());
  }
}
