import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { call, publicApi, session } from '../../api/client';
import { Button, ErrorNotice, Notice, TextField } from '../../components/ui';
import { AuthLayout, nextPath } from './auth-layout';

export async function signIn(email: string, password: string) {
  const tokens = await call(publicApi.POST('/auth/signin', { body: { email, password } }));
  session.start(tokens);
}

export function SignInPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signin = useMutation({ mutationFn: () => signIn(email, password), onSuccess: () => navigate(nextPath(params), { replace: true }) });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    signin.mutate();
  };
  const signupLink = `/signup${params.get('next') ? `?next=${encodeURIComponent(params.get('next')!)}` : ''}`;
  return (
    <AuthLayout title="Sign in to Herald" lead="Manage your projects, templates and push providers." foot={<>New to Herald? <Link to={signupLink}>Create an account</Link></>}>
      {params.get('expired') && <Notice kind="warning">Your session has ended. Sign in again to go back to where you were.</Notice>}
      {params.get('reset') && <Notice kind="success">Your password has been changed. Sign in with the new one.</Notice>}
      <form className="stack" onSubmit={submit}>
        <TextField label="Email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <TextField label="Password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        <ErrorNotice error={signin.error} />
        <Button variant="primary" type="submit" disabled={signin.isPending}>
          {signin.isPending ? 'Signing in…' : 'Sign in'}
        </Button>
        <Link to="/forgot-password" className="small" style={{ textAlign: 'center' }}>
          Forgot your password?
        </Link>
      </form>
    </AuthLayout>
  );
}

export function SignUpPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [form, setForm] = useState({ firstName: '', lastName: '', email: '', password: '' });
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  const signup = useMutation({
    mutationFn: async () => {
      await call(publicApi.POST('/auth/signup', { body: form }));
      await signIn(form.email, form.password);
    },
    onSuccess: () => navigate(nextPath(params), { replace: true }),
  });
  return (
    <AuthLayout title="Create your account" lead="You will be the owner of the projects you create." foot={<>Already have an account? <Link to="/signin">Sign in</Link></>}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          signup.mutate();
        }}
      >
        <div className="grid-2">
          <TextField label="First name" autoComplete="given-name" required value={form.firstName} onChange={set('firstName')} />
          <TextField label="Last name" autoComplete="family-name" required value={form.lastName} onChange={set('lastName')} />
        </div>
        <TextField label="Email" type="email" autoComplete="email" required value={form.email} onChange={set('email')} />
        <TextField label="Password" type="password" autoComplete="new-password" required minLength={8} hint="At least 8 characters." value={form.password} onChange={set('password')} />
        <ErrorNotice error={signup.error} />
        <Button variant="primary" type="submit" disabled={signup.isPending}>
          {signup.isPending ? 'Creating your account…' : 'Create account'}
        </Button>
      </form>
    </AuthLayout>
  );
}
