package io.tideline.quota;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tideline.testkit.ServiceHealthContract;
import io.tideline.testkit.TidelineInfraResource;

/** quota-svc starts against a real broker and registry and reports healthy with metrics. */
@QuarkusTest
@QuarkusTestResource(value = TidelineInfraResource.class, restrictToAnnotatedClass = true)
class ServiceHealthTest extends ServiceHealthContract {}
