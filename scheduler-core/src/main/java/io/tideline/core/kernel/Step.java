package io.tideline.core.kernel;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What one {@code step(now, state, input)} of a kernel returns: the next state, the effects the
 * step decided (in the order they were decided) and the entities of the state it changed (what
 * the adapter persists).
 *
 * @param state the state after the input
 * @param effects what the adapter must carry out (publish, act), in order
 * @param changes the state's entities written or removed by the step ({@link Journal})
 * @param <S> the kernel's state type
 * @param <E> the kernel's effect type
 */
public record Step<S, E>(S state, List<E> effects, Set<Journal.Changed> changes) {

  public Step {
    Objects.requireNonNull(state, "state");
    effects = List.copyOf(effects);
    changes = Set.copyOf(changes);
  }
}
