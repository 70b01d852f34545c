package io.tideline.core.pbt;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A property: a method taking one {@link Seed}, run once per seed of the run ({@link
 * Seeds#forThisRun()}), each run shown as "seed N (fixed|random|given)". A failure names the
 * seed, the command that re-runs it and the regression test that keeps it (ADR 0009).
 *
 * <pre>{@code
 * @SeededProperty
 * void noGpuIsOverbooked(Seed seed) {
 *   seed.qt(300).forAll(streams()).checkAssert(stream -> ...);
 * }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@TestTemplate
@ExtendWith(SeededPropertyExtension.class)
public @interface SeededProperty {}
