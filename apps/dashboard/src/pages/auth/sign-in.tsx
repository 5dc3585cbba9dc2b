import { signinBody, signupBody } from '@herald/schemas';
import { useMutation } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { call, publicApi, session } from '../../api/client';
import { Button, ErrorNotice, Form, Notice, TextField } from '../../components/ui';
import { useSchemaForm } from '../../lib/schema-form';
import { nextPath } from '../../lib/next-path';
import { AuthLayout } from './auth-layout';

export async function signIn(email: string, password: string) {
  const tokens = await call(publicApi.POST('/auth/signin', { body: { email, password } }));
  session.start(tokens);
}

export function SignInPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const signin = useMutation({ mutationFn: (body: { email: string; password: string }) => signIn(body.email, body.password), onSuccess: () => navigate(nextPath(params), { replace: true }) });
  const form = useSchemaForm(signinBody, { email: '', password: '' }, signin.error);
  const signupLink = `/signup${params.get('next') ? `?next=${encodeURIComponent(params.get('next')!)}` : ''}`;
  return (
    <AuthLayout title="Sign in to Herald" lead="Manage your projects, templates and push providers." foot={<>New to Herald? <Link to={signupLink}>Create an account</Link></>}>
      {params.get('expired') && <Notice kind="warning">Your session has ended. Sign in again to go back to where you were.</Notice>}
      {params.get('reset') && <Notice kind="success">Your password has been changed. Sign in with the new one.</Notice>}
      <Form
        className="stack"
        onSubmit={() => {
          form.submit((body) => signin.mutate(body));
        }}
      >
        <TextField label="Email" type="email" autoComplete="email" required {...form.field('email')} />
        <TextField label="Password" type="password" autoComplete="current-password" required {...form.field('password')} />
        <ErrorNotice error={signin.error} />
        <Button variant="primary" type="submit" disabled={signin.isPending}>
          {signin.isPending ? 'Signing in…' : 'Sign in'}
        </Button>
        <Link to="/forgot-password" className="small" style={{ textAlign: 'center' }}>
          Forgot your password?
        </Link>
      </Form>
    </AuthLayout>
  );
}

export function SignUpPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const signup = useMutation({
    mutationFn: async (body: { email: string; password: string; firstName: string; lastName: string }) => {
      await call(publicApi.POST('/auth/signup', { body }));
      await signIn(body.email, body.password);
    },
    onSuccess: () => navigate(nextPath(params), { replace: true }),
  });
  const form = useSchemaForm(signupBody, { firstName: '', lastName: '', email: '', password: '' }, signup.error);
  return (
    <AuthLayout title="Create your account" lead="You will be the owner of the projects you create." foot={<>Already have an account? <Link to="/signin">Sign in</Link></>}>
      <Form
        className="stack"
        onSubmit={() => {
          form.submit((body) => signup.mutate(body));
        }}
      >
        <div className="grid-2">
          <TextField label="First name" autoComplete="given-name" required {...form.field('firstName')} />
          <TextField label="Last name" autoComplete="family-name" required {...form.field('lastName')} />
        </div>
        <TextField label="Email" type="email" autoComplete="email" required {...form.field('email')} />
        <TextField label="Password" type="password" autoComplete="new-password" required minLength={8} hint="At least 8 characters." {...form.field('password')} />
        <ErrorNotice error={signup.error} />
        <Button variant="primary" type="submit" disabled={signup.isPending}>
          {signup.isPending ? 'Creating your account…' : 'Create account'}
        </Button>
      </Form>
    </AuthLayout>
  );
}
