package dev.skiplock.spring;

import dev.skiplock.JobContext;
import dev.skiplock.JobHandler;
import dev.skiplock.JobOutcome;
import dev.skiplock.ResumableHandler;
import dev.skiplock.Skiplock;
import java.util.Optional;
import java.util.UUID;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * Registers every {@link JobHandler} bean with the builder, under its {@link SkiplockHandler} kind.
 * A bean is looked up when its first job runs, not when Skiplock is built: a handler may then
 * depend on {@link SkiplockJobs} (to enqueue follow-up jobs) without a dependency cycle. A bean
 * whose type (its class, or its {@code @Bean} method's return type) is a {@link ResumableHandler}
 * is registered as one.
 */
final class HandlerBeans {
    private HandlerBeans() {
    }

    static void register(Skiplock.Builder builder, ListableBeanFactory beanFactory) {
        for (String name : beanFactory.getBeanNamesForType(JobHandler.class, true, false)) {
            SkiplockHandler handler = beanFactory.findAnnotationOnBean(name, SkiplockHandler.class, false);
            if (handler == null) {
                throw new IllegalStateException("bean '" + name + "' is a JobHandler without @SkiplockHandler(kind = …, "
                        + "args = …) on its class or @Bean method: Skiplock cannot tell which jobs it runs");
            }
            // The engine tells a resumable handler by its type (an adopter resumes its execution,
            // the claim keeps the job on its host): the lazy stand-in must be one too.
            Class<?> type = beanFactory.getType(name, false);
            register(builder, handler.kind(), handler.args(), type != null && ResumableHandler.class.isAssignableFrom(type)
                    ? new LazyResumableHandler<>(beanFactory, name) : new LazyHandler<>(beanFactory, name));
        }
    }

    private static <A> void register(Skiplock.Builder builder, String kind, Class<A> argsType, JobHandler<A> handler) {
        builder.handler(kind, argsType, handler);
    }

    /** {@link LazyHandler} of a {@link ResumableHandler} bean. */
    private record LazyResumableHandler<A>(ListableBeanFactory beanFactory, String name) implements ResumableHandler<A> {
        @Override
        public JobOutcome handle(JobContext<A> context) throws Exception {
            return bean().handle(context);
        }

        @Override
        public Optional<JobOutcome> resume(JobContext<A> context) throws Exception {
            return bean().resume(context);
        }

        @Override
        public void completed(UUID jobId, UUID executionId) {
            bean().completed(jobId, executionId);
        }

        @SuppressWarnings("unchecked")
        private ResumableHandler<A> bean() {
            return (ResumableHandler<A>) beanFactory.getBean(name, ResumableHandler.class);
        }
    }

    /** The bean named {@code name}, fetched at its first job (the bean factory caches singletons). */
    private record LazyHandler<A>(ListableBeanFactory beanFactory, String name) implements JobHandler<A> {
        @Override
        @SuppressWarnings("unchecked")
        public JobOutcome handle(JobContext<A> context) throws Exception {
            return ((JobHandler<A>) beanFactory.getBean(name, JobHandler.class)).handle(context);
        }
    }
}
