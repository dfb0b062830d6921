/**
 * The rpcc Maven plugin: its {@code check-functions} goal
 * ({@link io.rpcc.maven.CheckFunctionsMojo}) checks every chaining function of a project as an rpcc
 * server would (compile and sandbox, against the project's classes and dependencies) and packages
 * their sources for {@code ChainingFunctionSource.of(Class)}; a sandbox violation fails the build at
 * its source line and column.
 */
package io.rpcc.maven;
