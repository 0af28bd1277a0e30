// Placeholder until its page is written.
import { PageHeader } from '../components/ui';

export default function PolicyPage() {
  return <PageHeader title="Policy" />;
}
