package dev.skiplock.spring;

import dev.skiplock.JobContext;
import dev.skiplock.JobHandler;
import dev.skiplock.JobOutcome;
import dev.skiplock.ResumableHandler;
import dev.skiplock.Skiplock;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.ResolvableType;

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
        Map<String, String> beanOfKind = new HashMap<>();
        for (String name : beanFactory.getBeanNamesForType(JobHandler.class, true, false)) {
            if (ScopedProxyUtils.isScopedTarget(name)) {
                continue; // a scoped bean's target: its proxy, under the bean's own name, is the handler
            }
            // A scoped proxy's annotation and type are its target's (a @Bean method's sit on the target's definition)
            String declaring = beanFactory.containsBeanDefinition(ScopedProxyUtils.getTargetBeanName(name))
                    ? ScopedProxyUtils.getTargetBeanName(name) : name;
            SkiplockHandler handler = beanFactory.findAnnotationOnBean(declaring, SkiplockHandler.class, false);
            if (handler == null) {
                throw new IllegalStateException("bean '" + name + "' is a JobHandler without @SkiplockHandler(kind = …, "
                        + "args = …) on its class or @Bean method: Skiplock cannot tell which jobs it runs");
            }
            String other = beanOfKind.putIfAbsent(handler.kind(), name);
            if (other != null) {
                throw new IllegalStateException("beans '" + other + "' and '" + name + "' both handle kind '"
                        + handler.kind() + "' (@SkiplockHandler): a kind has one handler");
            }
            requireArgsOfItsType(beanFactory, declaring, handler);
            // The engine tells a resumable handler by its type (an adopter resumes its execution,
            // the claim keeps the job on its host): the lazy stand-in must be one too.
            Class<?> type = beanFactory.getType(declaring, false);
            register(builder, handler.kind(), handler.args(), type != null && ResumableHandler.class.isAssignableFrom(type)
                    ? new LazyResumableHandler<>(beanFactory, name) : new LazyHandler<>(beanFactory, name));
        }
    }

    /**
     * Refuses {@code args} that the bean's {@code JobHandler<A>} does not take, where its declared
     * type says (a class, or a {@code @Bean} method's generic return type): every job of the kind
     * failed with a ClassCastException inside the handler instead.
     */
    private static void requireArgsOfItsType(ListableBeanFactory beanFactory, String name, SkiplockHandler handler) {
        ResolvableType declared = beanFactory instanceof ConfigurableListableBeanFactory configurable
                && configurable.containsBeanDefinition(name)
                ? configurable.getMergedBeanDefinition(name).getResolvableType() : ResolvableType.NONE;
        if (declared == ResolvableType.NONE || declared.resolve() == null) {
            Class<?> type = beanFactory.getType(name, false);
            declared = type == null ? ResolvableType.NONE : ResolvableType.forClass(type);
        }
        Class<?> takes = declared.as(JobHandler.class).getGeneric(0).resolve();
        Class<?> args = org.springframework.util.ClassUtils.resolvePrimitiveIfNecessary(handler.args());
        // args = Object: Jackson's reading (a map, a list…) may well be what the handler takes
        if (takes != null && args != Object.class && !takes.isAssignableFrom(args)) {
            throw new IllegalStateException("bean '" + name + "' is a JobHandler<" + takes.getName()
                    + "> but its @SkiplockHandler says args = " + handler.args().getName()
                    + ": every job of kind '" + handler.kind() + "' would fail");
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
