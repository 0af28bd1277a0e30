// Placeholder until its page is written.
import { PageHeader } from '../components/ui';

export default function FindingsPage() {
  return <PageHeader title="Findings" />;
}
