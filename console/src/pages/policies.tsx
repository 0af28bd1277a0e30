// Placeholder until its page is written.
import { PageHeader } from '../components/ui';

export default function PoliciesPage() {
  return <PageHeader title="Policies" />;
}
