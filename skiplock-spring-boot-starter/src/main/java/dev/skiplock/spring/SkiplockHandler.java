package dev.skiplock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Registers a bean implementing {@link dev.skiplock.JobHandler} as the handler of one job kind; on the
 * bean's class or on its {@code @Bean} method. Every {@code JobHandler} bean needs it: the context
 * refuses to start naming a bean without it, or two beans for one kind.
 *
 * <pre>{@code
 * @Component
 * @SkiplockHandler(kind = "email.send", args = SendEmail.class)
 * class SendEmailHandler implements JobHandler<SendEmail> { ... }
 * }</pre>
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface SkiplockHandler {
    /** The job kind this bean runs: a stable string, never a class name. */
    String kind();

    /** The type the job's JSON args are read into (the handler's {@code A}). */
    Class<?> args();
}
